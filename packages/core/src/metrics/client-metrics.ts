import { Counter, Gauge, Registry } from 'prom-client';
import type { ThreatClient } from '../client/threat-client.js';
import { logTransportStats } from '../logging/create-logger.js';
import { setOwn } from '../records/prototype-keys.js';

/**
 * What the metrics read from a client, at scrape time: any `ThreatClient`, from any copy of core. A client whose
 * `config.enterprise.monitoring.metrics` is false is left out.
 */
export type MetricsClient = Pick<ThreatClient, 'feedStatus' | 'monitoringAlertStats'> & {
  logger?: unknown;
  /** `client.quotas()`: what is left of each feed's quota (a client from a core without it has none). */
  quotas?(): Promise<
    Array<{ feed: string; shared: boolean; windows: Array<{ window: string; limit: number; remaining: number }> }>
  >;
  /** `client.alerts`: its delivery counts (a client from a core without alert delivery has none). */
  alerts?: { deliveryCounts?(): Record<string, { delivered: number; failed: number }> };
  config?: { enterprise?: { monitoring?: { metrics?: boolean } } };
  /**
   * `client.integration(name)`: the storage integration's write counters and the webhooks integration's request and
   * delivery counters are read from their `stats()`.
   */
  integration?(name: string): unknown;
};

/** What the metrics read from a storage integration (`@threatlib/storage`'s `stats()`). */
interface StorageWriteStats {
  dropped?: unknown;
  buffered?: unknown;
}

/** The storage integration's write counters, when the client has one that reports them. */
function storageStats(client: MetricsClient): { dropped: number; buffered: number } | undefined {
  const storage = client.integration?.('storage') as { stats?: () => StorageWriteStats } | undefined;
  if (typeof storage?.stats !== 'function') return undefined;
  const stats = storage.stats();
  if (typeof stats?.dropped !== 'number' || typeof stats.buffered !== 'number') return undefined;
  return { dropped: stats.dropped, buffered: stats.buffered };
}

/** One endpoint's outgoing delivery counters, as `@threatlib/webhooks` reports them. */
interface WebhookEndpointStats {
  delivered: number;
  failed: number;
  blocked: number;
  pending: number;
}

/** What the metrics read from a webhooks integration (`@threatlib/webhooks`'s `stats()`). */
interface WebhookStats {
  incoming: Record<string, number>;
  endpoints: Record<string, WebhookEndpointStats>;
}

/** The webhooks integration's counters, when the client has one that reports them. */
function webhookStats(client: MetricsClient): WebhookStats | undefined {
  const webhooks = client.integration?.('webhooks') as { stats?: () => unknown } | undefined;
  if (typeof webhooks?.stats !== 'function') return undefined;
  const stats = webhooks.stats() as { incoming?: unknown; outgoing?: { endpoints?: unknown } } | undefined;
  const counters = (value: unknown): Record<string, number> =>
    Object.fromEntries(
      Object.entries(typeof value === 'object' && value !== null ? value : {}).filter(
        (entry): entry is [string, number] => typeof entry[1] === 'number',
      ),
    );
  const endpoints: Record<string, WebhookEndpointStats> = {};
  const listed = stats?.outgoing?.endpoints;
  for (const [endpoint, value] of Object.entries(typeof listed === 'object' && listed !== null ? listed : {})) {
    const { delivered = 0, failed = 0, blocked = 0, pending = 0 } = counters(value);
    // Endpoints are named by users: "__proto__" assigned would vanish from the metrics.
    setOwn(endpoints, endpoint, { delivered, failed, blocked, pending });
  }
  return { incoming: counters(stats?.incoming), endpoints };
}

/** Whether a client's metrics are on (`enterprise.monitoring.metrics`, default true). */
function metricsEnabled(client: MetricsClient): boolean {
  return client.config?.enterprise?.monitoring?.metrics !== false;
}

/** A client with the labels that tell its series apart from other clients' (`{prefix: '/api/v1'}`). */
export interface LabelledClient {
  client: MetricsClient;
  labels?: Readonly<Record<string, string>>;
}

/** Options of {@link createClientMetrics}. */
export interface ClientMetricsOptions {
  /** Register into this registry (a server's, say) instead of a new one. */
  registry?: Registry;
  /**
   * Names of the labels each {@link LabelledClient} gives; they come first on every series. Required when several
   * clients share the metrics, so their series differ.
   */
  labelNames?: readonly string[];
}

const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

type FeedStatusEntry = ReturnType<MetricsClient['feedStatus']>[number];

/**
 * Prometheus metrics of one client, or of several: feed results by final status, requests sent, retries, cache
 * hits, deduplicated lookups, queued and in-flight requests, breaker states, refused keys, monitoring alerts
 * sent, failed and suppressed, alert deliveries to integrations by outcome, log lines dropped by each logging
 * transport, the records a storage integration holds and could not keep, and a webhooks integration's incoming
 * requests by outcome and outgoing deliveries by endpoint and outcome (with those pending). Every value is read from
 * the clients
 * when the registry is scraped (nothing is
 * counted twice, nothing runs between scrapes). Returns the registry; serve `await registry.metrics()` with
 * `registry.contentType`. The metrics are registered once per registry: to cover several clients, pass a function
 * listing them with their labels.
 *
 * A client configured with `enterprise.monitoring.metrics: false` is left out: alone, it gets an empty registry (no
 * metric registered); among several, its series are not written.
 *
 * This lives in `@threatlib/core/metrics`, apart from the main entry, so that only users of metrics load
 * prom-client (an optional peer dependency: install it beside core).
 *
 * @example
 * ```ts
 * import { createClientMetrics } from '@threatlib/core/metrics';
 *
 * const registry = createClientMetrics(client);
 * http.createServer(async (_req, res) => {
 *   res.setHeader('content-type', registry.contentType);
 *   res.end(await registry.metrics());
 * });
 * // several clients in one registry:
 * createClientMetrics(() => clients.map(([name, client]) => ({ client, labels: { client: name } })), {
 *   registry, labelNames: ['client'],
 * });
 * ```
 */
export function createClientMetrics(
  clients: MetricsClient | (() => Iterable<LabelledClient>),
  options: ClientMetricsOptions = {},
): Registry {
  const registry = options.registry ?? new Registry();
  // One client whose metrics are off gets an empty registry: nothing is registered, nothing is read.
  if (typeof clients !== 'function' && !metricsEnabled(clients)) return registry;
  const labelNames = [...(options.labelNames ?? [])];
  const list = (): LabelledClient[] =>
    typeof clients === 'function'
      ? [...clients()].filter(({ client }) => metricsEnabled(client))
      : [{ client: clients }];
  const feedStatuses = () =>
    list().flatMap(({ client, labels }) => client.feedStatus().map((s) => ({ labels: { ...labels }, s })));
  const registers = [registry];

  const perFeedCounter = (name: string, help: string, value: (s: FeedStatusEntry) => number): void => {
    new Counter({
      name,
      help,
      labelNames: [...labelNames, 'feed'],
      registers,
      collect() {
        this.reset();
        for (const { labels, s } of feedStatuses()) this.inc({ ...labels, feed: s.feed }, value(s));
      },
    });
  };

  const perFeedGauge = (name: string, help: string, value: (s: FeedStatusEntry) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames, 'feed'],
      registers,
      collect() {
        this.reset();
        for (const { labels, s } of feedStatuses()) this.set({ ...labels, feed: s.feed }, value(s));
      },
    });
  };

  new Counter({
    name: 'threatlib_feed_results_total',
    help: 'Feed lookups by final status (requests, cache hits excluded)',
    labelNames: [...labelNames, 'feed', 'status'],
    registers,
    collect() {
      this.reset();
      for (const { labels, s } of feedStatuses()) {
        for (const [status, count] of Object.entries(s.requests.byStatus))
          this.inc({ ...labels, feed: s.feed, status }, count ?? 0);
      }
    },
  });
  perFeedCounter(
    'threatlib_feed_requests_sent_total',
    'Requests sent to each feed, retries included',
    (s) => s.requests.sent,
  );
  perFeedCounter('threatlib_feed_retries_total', 'Retries sent to each feed', (s) => s.requests.retries);
  perFeedCounter('threatlib_cache_hits_total', 'Feed answers served from the cache', (s) => s.requests.cacheHits);
  perFeedCounter(
    'threatlib_feed_deduplicated_total',
    'Lookups that shared a request already in flight',
    (s) => s.requests.deduplicated,
  );
  perFeedGauge(
    'threatlib_feed_breaker_state',
    'Circuit breaker state per feed: 0 closed, 1 half open, 2 open',
    (s) => BREAKER_VALUE[s.breaker.state],
  );
  perFeedGauge(
    'threatlib_feed_key_rejected',
    "1 while the feed's latest answer refused its API key (HTTP 401/403), else 0",
    (s) => (s.keyRejected ? 1 : 0),
  );
  perFeedGauge('threatlib_feed_queued', 'Requests waiting for quota or a concurrency slot', (s) => s.queued);
  perFeedGauge('threatlib_feed_in_flight', 'Requests running now', (s) => s.inFlight);

  // One read of the quotas per scrape, for the three gauges below (shared figures are a Redis round trip).
  let quotaRead:
    | Promise<
        Array<{ labels: Record<string, string>; reports: Awaited<ReturnType<NonNullable<MetricsClient['quotas']>>> }>
      >
    | undefined;
  const quotas = () => {
    quotaRead ??= Promise.all(
      list().map(async ({ client, labels }) => ({ labels: { ...labels }, reports: (await client.quotas?.()) ?? [] })),
    ).finally(() => {
      setImmediate(() => {
        quotaRead = undefined;
      });
    });
    return quotaRead;
  };
  const quotaGauge = (
    name: string,
    help: string,
    value: (window: { limit: number; remaining: number }) => number,
  ): void => {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames, 'feed', 'window', 'shared'],
      registers,
      async collect() {
        this.reset();
        for (const { labels, reports } of await quotas()) {
          for (const report of reports) {
            for (const window of report.windows) {
              this.set(
                { ...labels, feed: report.feed, window: window.window, shared: String(report.shared) },
                value(window),
              );
            }
          }
        }
      },
    });
  };
  quotaGauge(
    'threatlib_feed_quota_remaining',
    'What is left of each window of a feed\'s quota (shared="true": the cluster\'s figure, the same on every client)',
    (w) => w.remaining,
  );
  quotaGauge('threatlib_feed_quota_limit', "Each window's limit of a feed's quota, as kept", (w) => w.limit);

  new Counter({
    name: 'threatlib_monitoring_alerts_total',
    help: 'Monitoring alerts (breaker open, key rejected) by channel and outcome: sent or failed',
    labelNames: [...labelNames, 'channel', 'outcome'],
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        for (const [channel, counts] of Object.entries(client.monitoringAlertStats().channels)) {
          this.inc({ ...labels, channel, outcome: 'sent' }, counts.sent);
          this.inc({ ...labels, channel, outcome: 'failed' }, counts.failed);
        }
      }
    },
  });
  new Counter({
    name: 'threatlib_monitoring_alerts_suppressed_total',
    help: 'Monitoring alerts not sent because the same feed and condition was alerted on within the cooldown',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) this.inc({ ...labels }, client.monitoringAlertStats().suppressed);
    },
  });
  new Counter({
    name: 'threatlib_alert_deliveries_total',
    help: 'Alert deliveries to integrations by final outcome: delivered, or failed once its retries ran out',
    labelNames: [...labelNames, 'integration', 'status'],
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        for (const [integration, counts] of Object.entries(client.alerts?.deliveryCounts?.() ?? {})) {
          this.inc({ ...labels, integration, status: 'delivered' }, counts.delivered);
          this.inc({ ...labels, integration, status: 'failed' }, counts.failed);
        }
      }
    },
  });
  new Counter({
    name: 'threatlib_storage_records_dropped_total',
    help: 'Records (correlations, campaigns) the storage integration could not keep: refused while its write buffer was full, or still unwritten when it stopped',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        const stats = storageStats(client);
        if (stats) this.inc({ ...labels }, stats.dropped);
      }
    },
  });
  new Gauge({
    name: 'threatlib_storage_records_buffered',
    help: 'Records the storage integration holds now, waiting to be written or retried while the server is down',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        const stats = storageStats(client);
        if (stats) this.set({ ...labels }, stats.buffered);
      }
    },
  });
  new Counter({
    name: 'threatlib_webhook_deliveries_total',
    help: 'Outgoing webhook deliveries by endpoint and final outcome: delivered, failed (its retries spent, or 410 Gone), or blocked (refused by the network policy before any byte was sent)',
    labelNames: [...labelNames, 'endpoint', 'status'],
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        for (const [endpoint, counts] of Object.entries(webhookStats(client)?.endpoints ?? {})) {
          this.inc({ ...labels, endpoint, status: 'delivered' }, counts.delivered);
          this.inc({ ...labels, endpoint, status: 'failed' }, Math.max(0, counts.failed - counts.blocked));
          this.inc({ ...labels, endpoint, status: 'blocked' }, counts.blocked);
        }
      }
    },
  });
  new Gauge({
    name: 'threatlib_webhook_deliveries_pending',
    help: 'Outgoing webhook deliveries waiting in the outbox for their next attempt, by endpoint',
    labelNames: [...labelNames, 'endpoint'],
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        for (const [endpoint, counts] of Object.entries(webhookStats(client)?.endpoints ?? {})) {
          this.set({ ...labels, endpoint }, counts.pending);
        }
      }
    },
  });
  new Counter({
    name: 'threatlib_webhook_requests_total',
    help: 'Incoming webhook requests by outcome: handled, replayed (answered without running the handler), unauthorized (signature refused), limited (too many from one address), rejected (other 4xx) or failed (a handler threw)',
    labelNames: [...labelNames, 'outcome'],
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        for (const [outcome, count] of Object.entries(webhookStats(client)?.incoming ?? {})) {
          this.inc({ ...labels, outcome }, count);
        }
      }
    },
  });
  new Counter({
    name: 'threatlib_log_lines_dropped_total',
    help: 'Log lines a transport could not keep (webhook buffer full, syslog queue full, log file unwritable)',
    labelNames: [...labelNames, 'transport'],
    registers,
    collect() {
      this.reset();
      for (const { client, labels } of list()) {
        for (const [transport, stats] of Object.entries(logTransportStats(client.logger))) {
          if (stats.dropped !== undefined) this.inc({ ...labels, transport }, stats.dropped);
        }
      }
    },
  });
  return registry;
}
