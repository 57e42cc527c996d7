import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { type FeedEmulator, INVALID_KEY, startFeedEmulator } from '@threatlib/feed-emulator';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { parseConfig } from '../config/parse-config.js';
import type { ThreatConfig } from '../config/schema.js';
import { closeLogger, createLogger } from '../logging/create-logger.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { createClientMetrics } from './index.js';

const START = Date.parse('2026-12-01T00:00:00Z');
const OTX_KEY = 'otx-live-key-metrics-00112233';

let emulator: FeedEmulator;
beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterAll(async () => {
  await emulator.close();
});

function client(extra: Partial<ThreatConfig> = {}) {
  return new ThreatClient(
    {
      sources: ['feed_otx', 'feed_cti'],
      apiKeys: {
        feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx, timeout: 2000 },
        feed_cti: { key: INVALID_KEY, endpoint: emulator.endpoints.feed_cti, timeout: 2000 },
      },
      security: { enforceHttps: false },
      performance: { retryAttempts: 0, rateLimit: { enabled: false } },
      ...extra,
    },
    { env: false, logger: silentLogger, clock: new ManualClock(START) },
  );
}

describe('createClientMetrics, without any server', () => {
  it('after scans against the emulator, the registry exposes results, requests, cache hits, breakers and refused keys', async () => {
    const threat = client();
    const registry = createClientMetrics(threat);
    emulator.script('198.51.100.70', { behaviour: 'malicious', feeds: ['feed_otx'] });
    await threat.scout('198.51.100.70');
    await threat.scout('198.51.100.70'); // feed_otx from the cache; feed_cti's refusal is never cached
    const text = await registry.metrics();

    expect(text).toContain('# TYPE threatlib_feed_results_total counter');
    expect(text).toContain('threatlib_feed_results_total{feed="feed_otx",status="ok"} 1');
    expect(text).toContain('threatlib_feed_results_total{feed="feed_cti",status="auth_error"} 2');
    expect(text).toContain('threatlib_feed_requests_sent_total{feed="feed_otx"} 1');
    expect(text).toContain('threatlib_feed_requests_sent_total{feed="feed_cti"} 2');
    expect(text).toContain('threatlib_cache_hits_total{feed="feed_otx"} 1');
    expect(text).toContain('threatlib_feed_breaker_state{feed="feed_otx"} 0');
    expect(text).toContain('threatlib_feed_key_rejected{feed="feed_cti"} 1');
    expect(text).toContain('threatlib_feed_key_rejected{feed="feed_otx"} 0');
    expect(text).toContain('threatlib_feed_in_flight{feed="feed_otx"} 0');
    expect(text).not.toContain(OTX_KEY);
    expect(text).not.toContain(INVALID_KEY);
    expect(registry.contentType).toMatch(/^text\/plain/);
    await threat.stop();
  });

  it('values are read at scrape time: a breaker that opens shows at the next scrape', async () => {
    const threat = client({
      sources: ['feed_otx'],
      performance: { retryAttempts: 0, rateLimit: { enabled: false }, circuitBreaker: { failureThreshold: 1 } },
    });
    const registry = createClientMetrics(threat);
    expect(await registry.metrics()).toContain('threatlib_feed_breaker_state{feed="feed_otx"} 0');
    emulator.script('198.51.100.71', { behaviour: 'server_error', feeds: ['feed_otx'] });
    await threat.scout('198.51.100.71');
    const text = await registry.metrics();
    expect(text).toContain('threatlib_feed_breaker_state{feed="feed_otx"} 2');
    expect(text).toContain('threatlib_feed_results_total{feed="feed_otx",status="error"} 1');
    emulator.reset();
    await threat.stop();
  });

  it("exposes what is left of each window of each feed's quota, read from client.quotas() at scrape time", async () => {
    const threat = client({
      sources: ['feed_otx'],
      performance: { retryAttempts: 0, rateLimit: { perFeed: { feed_otx: { requestsPerMinute: 10 } } } },
    });
    const registry = createClientMetrics(threat);
    expect(await registry.metrics()).toContain(
      'threatlib_feed_quota_remaining{feed="feed_otx",window="minute",shared="false"} 10',
    );
    await threat.scout('198.51.100.72');
    await threat.scout('198.51.100.73');
    const text = await registry.metrics();
    expect(text).toContain('threatlib_feed_quota_remaining{feed="feed_otx",window="minute",shared="false"} 8');
    expect(text).toContain('threatlib_feed_quota_limit{feed="feed_otx",window="minute",shared="false"} 10');
    await threat.stop();
  });

  it('several clients share one registry, told apart by their labels', async () => {
    const a = client({ sources: ['feed_otx'] });
    const b = client({ sources: ['feed_otx'] });
    const registry = new Registry();
    const returned = createClientMetrics(
      () => [
        { client: a, labels: { tenant: 'a' } },
        { client: b, labels: { tenant: 'b' } },
      ],
      { registry, labelNames: ['tenant'] },
    );
    expect(returned).toBe(registry);
    await a.scout('198.51.100.72');
    const text = await registry.metrics();
    expect(text).toContain('threatlib_feed_requests_sent_total{tenant="a",feed="feed_otx"} 1');
    expect(text).toContain('threatlib_feed_requests_sent_total{tenant="b",feed="feed_otx"} 0');
    await a.stop();
    await b.stop();
  });

  it('with enterprise.monitoring.metrics false, a client registers nothing and is left out among several', async () => {
    const off = client({ sources: ['feed_otx'], enterprise: { monitoring: { metrics: false } } });
    const on = client({ sources: ['feed_otx'] });
    const alone = createClientMetrics(off);
    expect(alone.getMetricsAsArray()).toEqual([]);
    expect((await alone.metrics()).trim()).toBe('');

    const shared = createClientMetrics(
      () => [
        { client: off, labels: { tenant: 'off' } },
        { client: on, labels: { tenant: 'on' } },
      ],
      { labelNames: ['tenant'] },
    );
    const text = await shared.metrics();
    expect(text).toContain('threatlib_feed_requests_sent_total{tenant="on",feed="feed_otx"} 0');
    expect(text).not.toContain('tenant="off"');
    await off.stop();
    await on.stop();
  });

  it('counts the log lines a transport dropped: a log webhook nobody answers, with a small buffer', async () => {
    // A port that was just free: nothing listens there.
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const logger = createLogger(
      parseConfig({
        sources: ['feed_otx'],
        logging: {
          stderr: false,
          transports: { webhook: { url: `http://127.0.0.1:${port}/logs`, maxBuffer: 10, flushInterval: 60_000 } },
        },
      }).logging,
    );
    const registry = createClientMetrics({
      feedStatus: () => [],
      monitoringAlertStats: () => ({ raised: 0, suppressed: 0, channels: {} }),
      logger,
    });
    expect(await registry.metrics()).toContain('threatlib_log_lines_dropped_total{transport="webhook"} 0');
    for (let i = 0; i < 25; i++) logger.info({ i }, 'kept or dropped');
    expect(await registry.metrics()).toContain('threatlib_log_lines_dropped_total{transport="webhook"} 15');
    await closeLogger(logger);
  });

  it('reports what the storage integration holds and could not keep, read from its stats() at scrape time', async () => {
    const stats = { written: 10, buffered: 0, dropped: 0, failedWrites: 0, batches: 1 };
    const metricsOf = (integration: unknown) =>
      createClientMetrics({
        feedStatus: () => [],
        monitoringAlertStats: () => ({ raised: 0, suppressed: 0, channels: {} }),
        integration: (name: string) => (name === 'storage' ? integration : undefined),
      }).metrics();
    const storage = { stats: () => stats };
    expect(await metricsOf(storage)).toContain('threatlib_storage_records_dropped_total 0');
    Object.assign(stats, { buffered: 10_000, dropped: 42, failedWrites: 7 });
    const text = await metricsOf(storage);
    expect(text).toContain('threatlib_storage_records_dropped_total 42');
    expect(text).toContain('threatlib_storage_records_buffered 10000');
    // Without a storage integration (or one without stats) there is nothing to count.
    expect(await metricsOf(undefined)).toContain('threatlib_storage_records_dropped_total 0');
    expect(await metricsOf({})).toContain('threatlib_storage_records_buffered 0');
  });

  it("reports the webhooks integration's requests and deliveries by endpoint, read from its stats() at scrape time", async () => {
    const outgoing = {
      endpoints: {
        soc: { delivered: 3, failed: 2, blocked: 1, retried: 4, attempts: 9, pending: 5, disabled: false },
        siem: { delivered: 0, failed: 0, blocked: 0, retried: 0, attempts: 0, pending: 0, disabled: false },
      },
    };
    const incoming = { handled: 7, replayed: 1, unauthorized: 12, limited: 3, rejected: 2, failed: 0 };
    const registry = createClientMetrics({
      feedStatus: () => [],
      monitoringAlertStats: () => ({ raised: 0, suppressed: 0, channels: {} }),
      integration: (name: string) => (name === 'webhooks' ? { stats: () => ({ incoming, outgoing }) } : undefined),
    });
    const text = await registry.metrics();
    expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="soc",status="delivered"} 3');
    // Blocked deliveries are failed ones refused by the network policy: counted once, under blocked.
    expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="soc",status="failed"} 1');
    expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="soc",status="blocked"} 1');
    expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="siem",status="delivered"} 0');
    expect(text).toContain('threatlib_webhook_deliveries_pending{endpoint="soc"} 5');
    expect(text).toContain('threatlib_webhook_requests_total{outcome="unauthorized"} 12');
    expect(text).toContain('threatlib_webhook_requests_total{outcome="limited"} 3');
    outgoing.endpoints.soc.pending = 0;
    expect(await registry.metrics()).toContain('threatlib_webhook_deliveries_pending{endpoint="soc"} 0');
    // Without a webhooks integration there is no series.
    const without = await createClientMetrics({
      feedStatus: () => [],
      monitoringAlertStats: () => ({ raised: 0, suppressed: 0, channels: {} }),
    }).metrics();
    expect(without).not.toContain('threatlib_webhook_deliveries_total{');
  });

  it('reports an endpoint named "__proto__" like any other (issue 21: names are users\' keys)', async () => {
    const endpoints = JSON.parse(
      '{"__proto__":{"delivered":2,"failed":0,"blocked":0,"pending":1},"constructor":{"delivered":5,"failed":0,"blocked":0,"pending":0}}',
    );
    const registry = createClientMetrics({
      feedStatus: () => [],
      monitoringAlertStats: () => ({ raised: 0, suppressed: 0, channels: {} }),
      integration: (name: string) =>
        name === 'webhooks' ? { stats: () => ({ incoming: {}, outgoing: { endpoints } }) } : undefined,
    });
    const text = await registry.metrics();
    expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="__proto__",status="delivered"} 2');
    expect(text).toContain('threatlib_webhook_deliveries_pending{endpoint="__proto__"} 1');
    expect(text).toContain('threatlib_webhook_deliveries_total{endpoint="constructor",status="delivered"} 5');
  });
});
