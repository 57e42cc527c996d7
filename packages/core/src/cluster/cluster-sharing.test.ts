// What the clients of a cluster share, shown with several clients in one process on the e2e Redis (the
// multi-process acceptance is cluster-processes.test.ts): quotas without a refused attempt costing a window anything,
// breakers, alert deduplication, campaigns, the password kept out of every line and event, and lookups bounded when
// Redis hangs.
import { inspect } from 'node:util';
import { paceOf } from '@threatlib/feed-emulator';
import { afterEach, expect, it } from 'vitest';
import { describeWithRedis, E2E_REDIS, uniquePrefix } from '../cache/redis-e2e.test-suite.js';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Feed, FeedLookupResult } from '../feeds/feed.js';
import { answer, failure } from '../feeds/feed-response.js';
import type { Logger } from '../logging/logger.js';
import { silentLogger } from '../logging/logger.js';
import { systemClock } from '../scheduler/clock.js';
import { ClusterConnection } from './cluster-connection.js';
import { PrivateRedis } from './cluster-processes.test-suite.js';
import { loadRateLimiter, SharedQuota } from './shared-quota.js';

/** A feed of our own: counts its calls and answers what `script` says. */
function countingFeed(script: (indicator: string) => FeedLookupResult) {
  const calls: string[] = [];
  const feed: Feed = {
    specificationVersion: 'v1',
    id: 'feed_shared',
    name: 'Shared test feed',
    supportedTypes: ['ipv4'],
    requiresKey: false,
    defaultEndpoint: 'https://feed.example.com',
    async lookup(indicator) {
      calls.push(indicator.value);
      return script(indicator.value);
    },
  };
  return { feed, calls };
}

/** The answer of the registered feed in a scout's results. */
const shared = (result: { results: Array<{ feed: string; status: string }> } | undefined) =>
  result?.results.find((r) => r.feed === 'feed_shared');

const clients: ThreatClient[] = [];

function clusterClient(
  keyPrefix: string,
  feed: Feed,
  extra: Partial<ThreatConfig> = {},
  logger: Logger = silentLogger,
) {
  const client = new ThreatClient(
    {
      // A keyless feed_cti is not asked: only the feed registered here is.
      sources: ['feed_cti'],
      strategy: 'aggressive',
      warninglists: { builtin: false },
      performance: { retryAttempts: 0 },
      caching: { enabled: false },
      cluster: { enabled: true, kvserver: { ...E2E_REDIS, keyPrefix } },
      ...extra,
    } as ThreatConfig,
    { env: false, logger },
  );
  client.registerFeed(feed);
  clients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
});

describeWithRedis('what the clients of a cluster share', () => {
  it('gives back every point of a refused attempt: the minute window counts only the requests let go', async () => {
    const connection = new ClusterConnection({
      ...E2E_REDIS,
      db: 0,
      keyPrefix: uniquePrefix('refund'),
      commandTimeout: 2000,
      clock: systemClock,
      logger: silentLogger,
      onState: () => undefined,
    });
    await connection.start();
    try {
      const quota = new SharedQuota({
        connection,
        feed: 'feed_refund',
        // One request per ~half second, and 100 a minute.
        windows: { requestsPerSecond: 2, burstSize: 2, requestsPerMinute: 100 },
        limiters: loadRateLimiter(),
      });
      const outcomes = [];
      for (let i = 0; i < 10; i++) outcomes.push(await quota.acquire(Date.now()));
      const granted = outcomes.filter((o) => o.granted).length;
      expect(outcomes.filter((o) => !o.granted).length).toBeGreaterThan(0);
      // Refunds are sent without waiting: until they have all landed the window shows more used, never less.
      const used = async () => {
        await quota.refresh();
        const minute = quota.status(Date.now()).find((w) => w.window === 'minute');
        return minute && minute.limit - minute.remaining;
      };
      await expect.poll(used, { timeout: 15_000 }).toBe(granted);
    } finally {
      await connection.close();
    }
  });

  it("counts each request on Redis's clock: a client whose estimate of it runs 400 ms ahead lets no extra request go", async () => {
    // A client estimates Redis's clock from a TIME round trip: on a loaded machine the reply comes late and the
    // estimate errs by half the round trip. One whose estimate ran ahead counted its requests in slices the other
    // clients' windows did not cover yet, and they let a full burst go on top of its own.
    class Skewed extends ClusterConnection {
      override now(): number {
        return super.now() + 400;
      }
    }
    const options = {
      ...E2E_REDIS,
      db: 0,
      keyPrefix: uniquePrefix('skew'),
      commandTimeout: 5000,
      clock: systemClock,
      logger: silentLogger,
      onState: () => undefined,
    };
    const connections = [new Skewed(options), new ClusterConnection(options)];
    await Promise.all(connections.map((c) => c.start()));
    try {
      const quotas = connections.map(
        (connection) =>
          new SharedQuota({
            connection,
            feed: 'feed_skew',
            windows: { requestsPerSecond: 5, burstSize: 5 },
            limiters: loadRateLimiter(),
          }),
      );
      const grants: number[] = [];
      const until = Date.now() + 2500;
      await Promise.all(
        quotas.map(async (quota) => {
          while (Date.now() < until) {
            if ((await quota.acquire(Date.now())).granted) grants.push(Date.now());
            else await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }),
      );
      expect(grants.length).toBeGreaterThan(4);
      // What the feed's own bucket (5/s, burst 5) would say of requests let go at these times.
      expect(paceOf(grants, { requestsPerSecond: 5, burst: 5 }).overQuota).toBe(0);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
  });

  it("shows the cluster's figures in every client's quotas(): one client's requests are the other's too", async () => {
    const keyPrefix = uniquePrefix('quotas');
    const { feed } = countingFeed(() => answer({ status: 'ok', verdict: 'clean', score: 0 }));
    const config = {
      performance: { retryAttempts: 0, rateLimit: { perFeed: { feed_shared: { requestsPerHour: 120 } } } },
    };
    const [a, b] = [0, 1].map(() => clusterClient(keyPrefix, feed, config));
    await Promise.all([a, b].map((client) => client?.start()));
    for (let i = 1; i <= 3; i++) await a?.scout(`198.51.100.${40 + i}`);
    const hour = (await b?.quotas())?.find((q) => q.feed === 'feed_shared');
    expect(hour?.shared).toBe(true);
    const [window] = hour?.windows ?? [];
    expect(window && window.limit - window.remaining).toBe(3);
  });

  it('while one client asks a feed about an indicator, another asking the same waits for that answer', async () => {
    const keyPrefix = uniquePrefix('flights');
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const calls: string[] = [];
    const { feed } = countingFeed(() => answer({ status: 'ok', verdict: 'malicious', score: 1 }));
    const slow: Feed = {
      ...feed,
      async lookup(indicator, options) {
        calls.push(indicator.value);
        await held;
        return feed.lookup(indicator, options);
      },
    };
    // No verdict cache: only the shared flight can spare the feed a second request.
    const [a, b] = [0, 1].map(() => clusterClient(keyPrefix, slow));
    await Promise.all([a, b].map((client) => client?.start()));
    const first = a?.scout('198.51.100.60');
    await expect.poll(() => calls.length, { timeout: 15_000 }).toBe(1);
    const second = b?.scout('198.51.100.60');
    // B finds A's lock taken and waits (given time to get there; arriving later, it reads A's stored answer).
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    const [fromA, fromB] = await Promise.all([first, second]);
    expect(calls).toEqual(['198.51.100.60']);
    expect(shared(fromA)).toMatchObject({ status: 'ok', verdict: 'malicious' });
    expect(shared(fromB)).toMatchObject({ status: 'ok', verdict: 'malicious' });
    expect(b?.feedStatus().find((s) => s.feed === 'feed_shared')?.requests).toMatchObject({ sent: 0, deduplicated: 1 });
  }, 30_000);

  it("fires quotaLow on the cluster's figures: another client's requests count", async () => {
    const keyPrefix = uniquePrefix('quota-low');
    const { feed } = countingFeed(() => answer({ status: 'ok', verdict: 'clean', score: 0 }));
    // 10 an hour, quotaLowThreshold 0.1 (the default): low once 1 is left.
    const config = {
      performance: { retryAttempts: 0, rateLimit: { perFeed: { feed_shared: { requestsPerHour: 10 } } } },
    };
    const [a, b] = [0, 1].map(() => clusterClient(keyPrefix, feed, config));
    const low: unknown[] = [];
    b?.on('quotaLow', (event) => low.push(event));
    await Promise.all([a, b].map((client) => client?.start()));
    for (let i = 1; i <= 8; i++) await a?.scout(`198.51.100.${70 + i}`);
    await b?.scout('198.51.100.90');
    expect(low).toEqual([
      expect.objectContaining({ feed: 'feed_shared', window: 'hour', limit: 10, remaining: 1, shared: true }),
    ]);
  }, 30_000);

  it('opens a feed breaker for every client when their failures together reach the threshold', async () => {
    const keyPrefix = uniquePrefix('breaker');
    const { feed, calls } = countingFeed(() => failure('error', 'feed down', { statusCode: 503 }));
    const config = { performance: { retryAttempts: 0, circuitBreaker: { failureThreshold: 2, resetTimeout: 60_000 } } };
    const [a, b, c] = [0, 1, 2].map(() => clusterClient(keyPrefix, feed, config));
    await Promise.all([a, b, c].map((client) => client?.start()));
    await a?.scout('198.51.100.1');
    await b?.scout('198.51.100.2');
    // The shared breaker opens in the background of the second failure.
    await expect
      .poll(async () => shared(await c?.scout('198.51.100.3'))?.status, { timeout: 15_000 })
      .toBe('circuit_open');
    expect(calls).toEqual(['198.51.100.1', '198.51.100.2']);
    expect(c?.feedStatus().find((s) => s.feed === 'feed_shared')?.breaker.state).toBe('open');
  });

  it('raises one alert for a threat that several clients conclude', async () => {
    const keyPrefix = uniquePrefix('alerts');
    const { feed } = countingFeed(() => answer({ status: 'ok', verdict: 'malicious', score: 1 }));
    const [a, b] = [0, 1].map(() => clusterClient(keyPrefix, feed));
    await Promise.all([a, b].map((client) => client?.start()));
    await Promise.all([a?.correlate('198.51.100.7'), b?.correlate('198.51.100.7')]);
    await Promise.all([a, b].map((client) => client?.alerts.settled()));
    const pages = await Promise.all([a, b].map((client) => client?.alerts.list()));
    expect(pages.reduce((sum, page) => sum + (page?.items.length ?? 0), 0)).toBe(1);
  });

  it('forms one campaign from threats concluded by three clients', async () => {
    const keyPrefix = uniquePrefix('campaigns');
    const { feed } = countingFeed(() =>
      answer({ status: 'ok', verdict: 'malicious', score: 1, malwareFamilies: ['Emotet'] }),
    );
    const events: Array<{ status: string; indicatorCount: number }> = [];
    const three = [0, 1, 2].map(() => clusterClient(keyPrefix, feed));
    for (const client of three) client.on('campaignDetected', (event) => events.push(event));
    await Promise.all(three.map((client) => client.start()));
    for (const [i, client] of three.entries()) await client.correlate(`198.51.100.${20 + i}`);
    await expect.poll(() => events.length, { timeout: 15_000 }).toBe(1);
    expect(events[0]).toMatchObject({ status: 'formed', indicatorCount: 3 });
  });
});

it('never shows the Redis password: not in a log line, an event or an inspected client', async () => {
  const redis = await PrivateRedis.start({ password: 'the-real-cluster-password' });
  const lines: string[] = [];
  const logger: Logger = {
    debug: (obj, msg) => lines.push(`${inspect(obj, { depth: 5 })} ${msg ?? ''}`),
    info: (obj, msg) => lines.push(`${inspect(obj, { depth: 5 })} ${msg ?? ''}`),
    warn: (obj, msg) => lines.push(`${inspect(obj, { depth: 5 })} ${msg ?? ''}`),
    error: (obj, msg) => lines.push(`${inspect(obj, { depth: 5 })} ${msg ?? ''}`),
  };
  logger.child = () => logger;
  try {
    const wrong = 'a-wrong-password-to-hide';
    const { feed } = countingFeed(() => answer({ status: 'ok', verdict: 'clean', score: 0 }));
    const client = new ThreatClient(
      {
        sources: ['feed_cti'],
        warninglists: { builtin: false },
        caching: { enabled: true },
        cluster: { enabled: true, kvserver: { host: '127.0.0.1', port: redis.port, password: wrong } },
      },
      { env: false, logger },
    );
    clients.push(client);
    client.registerFeed(feed);
    const events: unknown[] = [];
    client.on('clusterDegraded', (event) => events.push(event));
    await client.start();
    expect(shared(await client.scout('198.51.100.9'))?.status).toBe('ok');
    await client.stop();
    expect(events).toHaveLength(1);
    const seen = [...lines, inspect(events, { depth: 5 }), inspect(client, { depth: 3 })].join('\n');
    expect(seen).toContain('cluster degraded');
    expect(seen).not.toContain(wrong);
  } finally {
    await redis.stop();
  }
  // A redis-server of its own to start, a refused connection and a scout: seconds on a loaded machine.
}, 60_000);

it('answers every lookup within its time limit while the cluster Redis accepts connections and never answers', async () => {
  const { createServer } = await import('node:net');
  const sockets = new Set<import('node:net').Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as { port: number }).port;
  try {
    const { feed, calls } = countingFeed(() => answer({ status: 'ok', verdict: 'clean', score: 0 }));
    const client = clusterClient(uniquePrefix('silent'), feed, {
      performance: { lookupTimeout: 5000, rateLimit: { perFeed: { feed_shared: { requestsPerSecond: 5 } } } },
      caching: { enabled: true },
      cluster: { enabled: true, commandTimeout: 200, kvserver: { host: '127.0.0.1', port } },
    } as Partial<ThreatConfig>);
    await client.start();
    const results = await Promise.all(['198.51.100.31', '198.51.100.32'].map((ip) => client.scout(ip)));
    expect(results.map((r) => shared(r)?.status)).toEqual(['ok', 'ok']);
    expect(calls).toHaveLength(2);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
}, 30_000);
