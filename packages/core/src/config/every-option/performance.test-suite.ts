// The checks of every-option.test.ts for `performance`: concurrency, time limits, retries, the circuit breaker and
// the rate limits.
import { ManualClock } from '../../scheduler/clock.js';
import { configWith, IP, sleep, until } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, effect } from './check.test-suite.js';
import { failing, h, IP2, limits, lookupsOver, START, settle, slowProbe, statuses } from './world.test-suite.js';

/** The breaker of `feed_probe` after the scouts `act` makes on a client whose probe always fails with 400. */
async function breaker(
  config: ThreatConfig,
  act: (scout: () => Promise<unknown>, clock: ManualClock) => Promise<void>,
) {
  const clock = new ManualClock(START);
  const { client, probe } = h.client(config, { clock });
  failing('error', { message: 'bad request', statusCode: 400 })(probe);
  await act(() => client.scout(IP), clock);
  const status = client.feedStatus().find((s) => s.feed === 'feed_probe')?.breaker;
  return {
    state: status?.state,
    resetMs:
      status?.nextTrialAt && status.openedAt ? Date.parse(status.nextTrialAt) - Date.parse(status.openedAt) : null,
  };
}

/** How many times a probe failing with 503 was asked by the time `clock` has moved by each of `steps`. */
async function retriesOver(config: ThreatConfig, steps: number[]) {
  const clock = new ManualClock(START);
  const { client, probe } = h.client(config, { clock });
  failing('error', { message: 'unavailable', statusCode: 503 })(probe);
  const scout = client.scout(IP);
  await until(() => probe.calls.length === 1);
  // The retry's wait is set once the failed answer has gone through the pipeline.
  await settle();
  const seen: number[] = [];
  for (const step of steps) {
    await clock.advance(step);
    await settle();
    seen.push(probe.calls.length);
  }
  for (let i = 0; i < 10; i++) await clock.advance(60_000);
  await scout;
  return seen;
}

/** The `quotaLow` events after `lookups` scouts of distinct addresses. */
async function quotaLowEvents(config: ThreatConfig, lookups: number) {
  const { client } = h.client(config, { clock: new ManualClock(START) });
  const events: unknown[] = [];
  client.on('quotaLow', (event) => events.push(event));
  for (let i = 1; i <= lookups; i++) await client.scout(`198.51.100.${100 + i}`);
  return events;
}

/** One check per option of `performance`. */
export const PERFORMANCE_CHECKS: Record<string, Check> = {
  'performance.maxConcurrency': effect(
    { performance: { maxConcurrency: 3 } },
    async (c) => h.client(c).client.concurrency,
  ),
  'performance.requestTimeout': effect({ performance: { requestTimeout: 20 } }, async (c) =>
    statuses(c, slowProbe(150)),
  ),
  'performance.retryAttempts': effect(
    { performance: { retryAttempts: 1 } },
    async (c) => lookupsOver(c, [IP], { setup: failing('error', { message: 'unavailable', statusCode: 503 }) }),
    { performance: { retryAttempts: 3, retryDelay: 0 } },
  ),
  'performance.maxQueueWait': effect(
    { performance: { maxQueueWait: 10 } },
    async (c) => {
      const clock = new ManualClock(START);
      const { client } = h.client(c, { clock });
      await client.scout(IP);
      const second = client.scout(IP2);
      const status = await Promise.race([
        second.then((s) => s.results.find((r) => r.feed === 'feed_probe')?.status),
        sleep(100).then(() => 'still waiting for quota'),
      ]);
      await clock.advance(61_000);
      await second;
      return status;
    },
    // A lookup time limit the minute's wait fits in: maxQueueWait cuts the wait short within it.
    { performance: { lookupTimeout: 120_000, rateLimit: { perFeed: { feed_probe: { requestsPerMinute: 1 } } } } },
  ),
  'performance.lookupTimeout': effect({ performance: { lookupTimeout: 20 } }, async (c) => statuses(c, slowProbe(150))),
  'performance.retryDelay': effect({ performance: { retryDelay: 4000 } }, async (c) => retriesOver(c, [1000]), {
    performance: { retryAttempts: 1 },
  }),
  'performance.backoffMultiplier': effect(
    { performance: { backoffMultiplier: 6 } },
    async (c) => retriesOver(c, [1000, 2000]),
    { performance: { retryAttempts: 2 } },
  ),
  'performance.circuitBreaker.failureThreshold': effect(
    { performance: { circuitBreaker: { failureThreshold: 1 } } },
    async (c) => (await breaker(c, async (scout) => void (await scout()))).state,
  ),
  'performance.circuitBreaker.resetTimeout': effect(
    { performance: { circuitBreaker: { resetTimeout: 5000 } } },
    async (c) => (await breaker(c, async (scout) => void (await scout()))).resetMs,
    { performance: { circuitBreaker: { failureThreshold: 1 } } },
  ),
  'performance.circuitBreaker.monitoringWindow': effect(
    { performance: { circuitBreaker: { monitoringWindow: 5000 } } },
    async (c) =>
      (
        await breaker(c, async (scout, clock) => {
          await scout();
          await clock.advance(10_000);
          await scout();
        })
      ).state,
    { performance: { circuitBreaker: { failureThreshold: 2 } } },
  ),
  'performance.rateLimit.enabled': effect({ performance: { rateLimit: { enabled: false } } }, async (c) =>
    limits(configWith(c, { sources: ['feed_otx'] }), 'feed_otx'),
  ),
  'performance.rateLimit.requestsPerSecond': effect(
    { performance: { rateLimit: { requestsPerSecond: 3 } } },
    async (c) => limits(c),
  ),
  'performance.rateLimit.burstSize': effect({ performance: { rateLimit: { burstSize: 9 } } }, async (c) => limits(c), {
    performance: { rateLimit: { requestsPerSecond: 3 } },
  }),
  'performance.rateLimit.requestsPerMinute': effect(
    { performance: { rateLimit: { requestsPerMinute: 30 } } },
    async (c) => limits(c),
  ),
  'performance.rateLimit.requestsPerHour': effect({ performance: { rateLimit: { requestsPerHour: 300 } } }, async (c) =>
    limits(c),
  ),
  'performance.rateLimit.requestsPerDay': effect({ performance: { rateLimit: { requestsPerDay: 3000 } } }, async (c) =>
    limits(c),
  ),
  'performance.rateLimit.quotaLowThreshold': effect(
    { performance: { rateLimit: { quotaLowThreshold: 0.5 } } },
    (c) => quotaLowEvents(c, 6),
    { performance: { rateLimit: { perFeed: { feed_probe: { requestsPerMinute: 10 } } } } },
  ),
  ...Object.fromEntries(
    (
      [
        ['requestsPerSecond', 4],
        ['burstSize', 8],
        ['requestsPerMinute', 40],
        ['requestsPerHour', 400],
        ['requestsPerDay', 4000],
      ] as const
    ).map(([window, value]) => [
      `performance.rateLimit.perFeed.*.${window}`,
      effect(
        { performance: { rateLimit: { perFeed: { feed_probe: { [window]: value } } } } },
        async (c) => limits(c),
        window === 'burstSize'
          ? { performance: { rateLimit: { perFeed: { feed_probe: { requestsPerSecond: 2 } } } } }
          : {},
      ),
    ]),
  ),
};
