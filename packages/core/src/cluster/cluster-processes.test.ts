// Issue 26's acceptance: clients in separate processes with `cluster` on share one quota per feed, ask each indicator
// once, and each gets every verdict; with their Redis gone they keep to their share and resume sharing when it is back.
import { type FeedEmulator, paceOf, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWithRedis, E2E_REDIS, uniquePrefix } from '../cache/redis-e2e.test-suite.js';
import type { ThreatConfig } from '../config/schema.js';
import { ClientProcess, PrivateRedis, type Reported } from './cluster-processes.test-suite.js';

const QUOTA = { requestsPerSecond: 5, burst: 5 };

/** Every fifth indicator is malicious, the others unknown to the feed. */
const verdictOf = (indicator: string) =>
  Number(indicator.split('.')[0]?.slice(1)) % 5 === 0 ? 'malicious' : 'unknown';

function hosts(label: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `h${i}.${label}.threatlib-cluster-test.net`);
}

/** `items` in another order per process, so that the processes do not simply take turns on the same list. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const at = (by * 17) % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}

function clientConfig(emulator: FeedEmulator, kvserver: { host: string; port: number; keyPrefix: string }, extra = {}) {
  return {
    sources: ['feed_urls'],
    apiKeys: { feed_urls: { endpoint: emulator.endpoints.feed_urls } },
    security: { enforceHttps: false },
    warninglists: { builtin: false },
    performance: {
      maxConcurrency: 10,
      retryAttempts: 2,
      retryDelay: 100,
      // Three processes share 5 requests a second: a lookup may wait its turn for a while.
      lookupTimeout: 120_000,
      rateLimit: { perFeed: { feed_urls: { requestsPerSecond: QUOTA.requestsPerSecond, burstSize: QUOTA.burst } } },
    },
    caching: { enabled: true, type: 'memory' },
    cluster: { enabled: true, kvserver, ...extra },
  } as ThreatConfig;
}

/** Each process got an answer (not a failure) from the feed for every indicator, with the scripted verdict. */
function expectEveryVerdict(reported: Reported, indicators: readonly string[]): void {
  expect(Object.keys(reported).sort()).toEqual([...indicators].sort());
  for (const indicator of indicators) {
    const [result] = reported[indicator] ?? [];
    expect(result, indicator).toMatchObject({ feed: 'feed_urls', verdict: verdictOf(indicator) });
    expect(['ok', 'not_found'], `${indicator}: ${result?.status}`).toContain(result?.status);
  }
}

describeWithRedis('a cluster of client processes (issue 26)', () => {
  let emulator: FeedEmulator;
  const processes: ClientProcess[] = [];

  beforeAll(async () => {
    emulator = await startFeedEmulator({
      quotas: { feed_urls: QUOTA },
      latencyMs: 20,
      defaultBehaviour: (_feed, indicator) => (verdictOf(indicator) === 'malicious' ? 'malicious' : 'not_found'),
    });
  });
  afterEach(async () => {
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    emulator.reset();
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('three processes against a 5/s quota: each indicator asked once, no second over the quota, every verdict everywhere', async () => {
    const indicators = hosts('three', 60);
    const kvserver = { ...E2E_REDIS, keyPrefix: uniquePrefix('three-processes') };
    // Redis answers throughout; a loaded machine's stalled event loop must not pass for an outage.
    const patient = { commandTimeout: 10_000 };
    for (let i = 0; i < 3; i++) processes.push(new ClientProcess(clientConfig(emulator, kvserver, patient)));
    await Promise.all(processes.map((p) => p.ready));

    const reports = await Promise.all(processes.map((p, i) => p.scan(rotated(indicators, i))));

    // Redis answered throughout (a client that found it unreachable would rightly ask for itself).
    expect(processes.flatMap((p) => p.events)).toEqual([]);
    const asked = (indicator: string) =>
      `${indicator}, answered ${JSON.stringify(reports.map((r) => r[indicator]))}, emulator ${JSON.stringify(emulator.stats().feeds.feed_urls)}`;
    for (const indicator of indicators) expect(emulator.count('feed_urls', indicator), asked(indicator)).toBe(1);
    expect(emulator.count('feed_urls')).toBe(60);
    const pace = paceOf(emulator.arrivals().feed_urls, QUOTA);
    expect(pace.overQuota).toBe(0);
    expect(pace.peak).toBeLessThanOrEqual(pace.allowed);
    expect(emulator.stats().feeds.feed_urls.violations).toBe(0);
    for (const reported of reports) expectEveryVerdict(reported, indicators);
  }, 120_000);

  it('with its Redis stopped mid-run, each process keeps to its share, and sharing resumes once Redis is back', async () => {
    const redis = await PrivateRedis.start();
    try {
      const kvserver = { host: '127.0.0.1', port: redis.port, keyPrefix: uniquePrefix('outage') };
      for (let i = 0; i < 2; i++) {
        processes.push(new ClientProcess(clientConfig(emulator, kvserver, { expectedPeers: 2, commandTimeout: 5000 })));
      }
      await Promise.all(processes.map((p) => p.ready));

      // Phase 1: shared, then Redis dies a few seconds in (a killed server closes the connections: the clients notice
      // at once, not after commandTimeout); the scans go on, each process within half the quota.
      const first = hosts('outage-first', 40);
      const scans = processes.map((p, i) => p.scan(rotated(first, i)));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const stoppedAt = performance.now();
      await redis.stop();
      await Promise.all(processes.map((p) => p.sawEvent('clusterDegraded')));
      const reports = await Promise.all(scans);
      for (const reported of reports) expectEveryVerdict(reported, first);

      // During the outage (from a second after it began, past the requests already let go) the two shares add up to
      // the quota: no second saw more than the quota allows.
      const outage = emulator.arrivals().feed_urls.filter((t) => t > stoppedAt + 1000);
      expect(outage.length).toBeGreaterThan(0);
      expect(paceOf(outage, QUOTA).overQuota).toBe(0);

      // Phase 2: Redis is back (empty); once both processes see it, they share again: each indicator asked once.
      await redis.start();
      await Promise.all(processes.map((p) => p.sawEvent('clusterRestored')));
      emulator.resetCounters();
      const second = hosts('outage-second', 20);
      const again = await Promise.all(processes.map((p, i) => p.scan(rotated(second, i))));
      for (const indicator of second) expect(emulator.count('feed_urls', indicator), indicator).toBe(1);
      expect(paceOf(emulator.arrivals().feed_urls, QUOTA).overQuota).toBe(0);
      for (const reported of again) expectEveryVerdict(reported, second);
    } finally {
      await Promise.all(processes.splice(0).map((p) => p.stop()));
      await redis.stop();
    }
  }, 180_000);
});
