import { describe, expect, it, vi } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Feed, FeedLookupResult } from '../feeds/feed.js';
import { answer, failure } from '../feeds/feed-response.js';
import type { Indicator } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';

const START = Date.parse('2026-11-01T00:00:00Z');

/** A registered feed whose answers come from `script`, recording when each request was sent. */
function feedWith(
  script: (indicator: Indicator, call: number) => FeedLookupResult | Promise<FeedLookupResult>,
  clock: ManualClock,
) {
  const sent: Array<{ indicator: string; at: number }> = [];
  const feed: Feed = {
    specificationVersion: 'v1',
    id: 'feed_test',
    name: 'Test feed',
    supportedTypes: ['ipv4', 'domain'],
    requiresKey: false,
    defaultEndpoint: 'https://feed.example.com',
    async lookup(indicator) {
      sent.push({ indicator: indicator.value, at: clock.now() });
      return script(indicator, sent.length);
    },
  };
  return { feed, sent };
}

function clientWith(clock: ManualClock, feed: Feed, config: Partial<ThreatConfig> = {}) {
  const client = new ThreatClient(
    {
      sources: [],
      lists: [],
      warninglists: { builtin: false },
      strategy: 'aggressive',
      caching: { enabled: false },
      ...config,
      // The schema wants a source or a list; the test feed is registered below.
    } as ThreatConfig,
    { env: false, logger: silentLogger, clock },
  );
  client.registerFeed(feed);
  return client;
}

const ok = () => answer({ status: 'ok', verdict: 'malicious', score: 0.9, evidence: ['bad'] });
const serverError = () => failure('error', 'HTTP 500', { statusCode: 500 });
const status = (client: ThreatClient) => client.feedStatus().find((s) => s.feed === 'feed_test');

// sources may not be empty without lists, so the clients above list a dummy keyless source.
const base: Partial<ThreatConfig> = { sources: ['feed_otx'] };

describe('circuit breaker through the client', () => {
  it('opens after failureThreshold failures, answers circuit_open at once, lets a trial through after resetTimeout', async () => {
    const clock = new ManualClock(START);
    let healthy = false;
    const { feed, sent } = feedWith(() => (healthy ? ok() : serverError()), clock);
    const client = clientWith(clock, feed, {
      ...base,
      performance: {
        retryAttempts: 0,
        circuitBreaker: { failureThreshold: 3, resetTimeout: 60_000, monitoringWindow: 300_000 },
      },
    });
    const result = (ip: string) => client.scout(ip).then((s) => s.results.find((r) => r.feed === 'feed_test'));

    expect(status(client)?.breaker).toEqual({ state: 'closed', failures: 0 });
    for (let i = 1; i <= 3; i++) expect((await result(`198.51.100.${i}`))?.status).toBe('error');
    expect(status(client)?.breaker).toEqual({
      state: 'open',
      failures: 0,
      openedAt: new Date(START).toISOString(),
      nextTrialAt: new Date(START + 60_000).toISOString(),
    });

    const refused = await result('198.51.100.4');
    expect(refused).toMatchObject({ status: 'circuit_open', verdict: 'unknown' });
    expect(refused?.evidence[0]).toMatch(/circuit breaker is open until/);
    expect(sent).toHaveLength(3);

    await clock.advance(60_000);
    expect(status(client)?.breaker.state).toBe('half_open');
    // The trial fails: open again.
    expect((await result('198.51.100.5'))?.status).toBe('error');
    expect(status(client)?.breaker.state).toBe('open');

    await clock.advance(60_000);
    healthy = true;
    expect((await result('198.51.100.6'))?.status).toBe('ok');
    expect(status(client)?.breaker).toEqual({ state: 'closed', failures: 0 });
    expect(sent).toHaveLength(5);
    expect(status(client)?.lastError).toMatchObject({ status: 'error', message: 'HTTP 500' });
    expect(status(client)?.requests.byStatus).toEqual({ error: 4, circuit_open: 1, ok: 1 });
  });
});

describe('quotas through the client', () => {
  it('a batch whose quota is exhausted waits and completes when the window refills', async () => {
    const clock = new ManualClock(START);
    const { feed, sent } = feedWith(() => ok(), clock);
    const client = clientWith(clock, feed, {
      ...base,
      performance: { rateLimit: { perFeed: { feed_test: { requestsPerMinute: 2 } } } },
    });
    const done: string[] = [];
    const run = (async () => {
      for await (const item of client.scoutMany([
        '198.51.100.1',
        '198.51.100.2',
        '198.51.100.3',
        '198.51.100.4',
        '198.51.100.5',
      ])) {
        if (item.ok)
          done.push(`${item.result.indicator}:${item.result.results.find((r) => r.feed === 'feed_test')?.status}`);
      }
    })();
    await clock.advance(0);
    expect(sent).toHaveLength(2);
    expect(status(client)?.quota).toEqual([
      { window: 'minute', limit: 2, remaining: 0, resetsAt: new Date(START + 60_601).toISOString() },
    ]);
    expect(status(client)?.queued).toBe(3);
    await clock.advance(60_601);
    expect(sent).toHaveLength(4);
    await clock.advance(60_601);
    await run;
    expect(done).toHaveLength(5);
    expect(done.every((d) => d.endsWith(':ok'))).toBe(true);
    expect(sent.map((s) => s.at - START)).toEqual([0, 0, 60_601, 60_601, 121_202]);
  });

  it('a request whose wait would pass its deadline answers rate_limited naming the window', async () => {
    const clock = new ManualClock(START);
    const { feed } = feedWith(() => ok(), clock);
    const client = clientWith(clock, feed, {
      ...base,
      performance: { maxQueueWait: 30_000, rateLimit: { perFeed: { feed_test: { requestsPerDay: 1 } } } },
    });
    const limited = vi.fn();
    client.on('rateLimited', limited);
    await client.scout('198.51.100.1');
    const late = (await client.scout('198.51.100.2')).results.find((r) => r.feed === 'feed_test');
    expect(late).toMatchObject({ status: 'rate_limited', verdict: 'unknown' });
    expect(late?.evidence[0]).toMatch(/^feed_test: no room in its day quota \(1\/day\) before the deadline/);
    expect(limited).toHaveBeenCalledWith('feed_test');
  });

  it('Retry-After from the feed pauses it, fires rateLimited, and the retry goes after the pause', async () => {
    const clock = new ManualClock(START);
    const { feed, sent } = feedWith(
      (_i, call) =>
        call === 1 ? failure('rate_limited', 'slow down', { statusCode: 429, retryAfterMs: 30_000 }) : ok(),
      clock,
    );
    const client = clientWith(clock, feed, base);
    const limited = vi.fn();
    client.on('rateLimited', limited);
    const pending = client.scout('198.51.100.1');
    await clock.advance(0);
    expect(limited).toHaveBeenCalledWith('feed_test');
    expect(status(client)?.pausedUntil).toBe(new Date(START + 30_000).toISOString());
    // Another indicator waits behind the pause too.
    const other = client.scout('198.51.100.2');
    await clock.advance(29_999);
    expect(sent).toHaveLength(1);
    await clock.advance(1);
    const [first, second] = await Promise.all([pending, other]);
    expect(first.results.find((r) => r.feed === 'feed_test')?.status).toBe('ok');
    expect(second.results.find((r) => r.feed === 'feed_test')?.status).toBe('ok');
    expect(sent.map((s) => s.at - START)).toEqual([0, 30_000, 30_000]);
    expect(status(client)?.requests).toMatchObject({ sent: 3, retries: 1 });
  });
});

describe('retries', () => {
  it('retries a 5xx with backoff and succeeds', async () => {
    const clock = new ManualClock(START);
    const { feed, sent } = feedWith((_i, call) => (call < 3 ? serverError() : ok()), clock);
    const client = clientWith(clock, feed, {
      ...base,
      performance: { retryAttempts: 3, retryDelay: 1000, backoffMultiplier: 2 },
    });
    const pending = client.scout('198.51.100.1');
    await clock.advance(10_000);
    const result = (await pending).results.find((r) => r.feed === 'feed_test');
    expect(result?.status).toBe('ok');
    expect(sent).toHaveLength(3);
    const at = sent.map((s) => s.at);
    const gaps = [(at[1] ?? 0) - (at[0] ?? 0), (at[2] ?? 0) - (at[1] ?? 0)];
    expect(gaps[0]).toBeGreaterThanOrEqual(500);
    expect(gaps[0]).toBeLessThanOrEqual(1000);
    expect(gaps[1]).toBeGreaterThanOrEqual(1000);
    expect(gaps[1]).toBeLessThanOrEqual(2000);
    expect(status(client)?.requests).toMatchObject({ sent: 3, retries: 2 });
  });

  it.each([
    ['401', failure('auth_error', 'refused', { statusCode: 401 })],
    ['403', failure('auth_error', 'refused', { statusCode: 403 })],
    ['404', failure('error', 'HTTP 404', { statusCode: 404 })],
  ])('never retries %s', async (_code, answerWith) => {
    const clock = new ManualClock(START);
    const { feed, sent } = feedWith(() => answerWith, clock);
    const client = clientWith(clock, feed, base);
    const pending = client.scout('198.51.100.1');
    await clock.advance(60_000);
    await pending;
    expect(sent).toHaveLength(1);
  });

  it('gives up after retryAttempts and reports the failure', async () => {
    const clock = new ManualClock(START);
    const { feed, sent } = feedWith(() => serverError(), clock);
    const client = clientWith(clock, feed, { ...base, performance: { retryAttempts: 2 } });
    const errors = vi.fn();
    client.on('feedError', errors);
    const pending = client.scout('198.51.100.1');
    await clock.advance(60_000);
    expect((await pending).results.find((r) => r.feed === 'feed_test')?.status).toBe('error');
    expect(sent).toHaveLength(3);
    // One feedError for the final outcome, not one per attempt.
    expect(errors).toHaveBeenCalledTimes(1);
  });
});

describe('in-flight deduplication', () => {
  it('concurrent lookups of the same (feed, indicator) share one request', async () => {
    const clock = new ManualClock(START);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { feed, sent } = feedWith(async () => {
      await gate;
      return ok();
    }, clock);
    const client = clientWith(clock, feed, base);
    const all = Promise.all([client.scout('198.51.100.9'), client.scout('198.51.100.9'), client.scout('198.51.100.9')]);
    await clock.advance(0);
    release();
    const results = await all;
    expect(sent).toHaveLength(1);
    expect(results.map((r) => r.results.find((x) => x.feed === 'feed_test')?.status)).toEqual(['ok', 'ok', 'ok']);
    expect(status(client)?.requests).toMatchObject({ sent: 1, deduplicated: 2 });
  });
});

describe('updateConcurrency under load', () => {
  it('applies to queued work without dropping any', async () => {
    const clock = new ManualClock(START);
    const releases: Array<() => void> = [];
    let running = 0;
    let peak = 0;
    const { feed } = feedWith(
      () =>
        new Promise<FeedLookupResult>((resolve) => {
          running += 1;
          peak = Math.max(peak, running);
          releases.push(() => {
            running -= 1;
            resolve(ok());
          });
        }),
      clock,
    );
    const client = clientWith(clock, feed, { ...base, performance: { maxConcurrency: 2 } });
    const scouts = Array.from({ length: 12 }, (_, i) => client.scout(`198.51.100.${i + 1}`));
    await clock.advance(0);
    expect(running).toBe(2);
    client.updateConcurrency(6);
    await clock.advance(0);
    expect(running).toBe(6);
    while (releases.length > 0) {
      releases.shift()?.();
      await clock.advance(0);
    }
    const results = await Promise.all(scouts);
    expect(results).toHaveLength(12);
    expect(peak).toBe(6);
  });
});
