import type { ThreatClient } from '@threatlib/core';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * The Prometheus metrics the server exposes at `/metrics`: HTTP requests and latency by route and status, and, read
 * from each mounted client when scraped, feed results by status, cache hits and breaker states.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #duration: Histogram<'method' | 'route'>;

  constructor(clients: () => ReadonlyArray<{ prefix: string; client: ThreatClient }>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'threatlib_process_' });
    this.#requests = new Counter({
      name: 'threatlib_http_requests_total',
      help: 'HTTP requests answered, by method, route and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.#duration = new Histogram({
      name: 'threatlib_http_request_duration_seconds',
      help: 'HTTP request latency, by method and route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const feedStatuses = () =>
      clients().flatMap(({ prefix, client }) => client.feedStatus().map((s) => ({ prefix, s })));
    new Counter({
      name: 'threatlib_feed_results_total',
      help: 'Feed lookups by final status (requests, cache hits excluded)',
      labelNames: ['prefix', 'feed', 'status'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { prefix, s } of feedStatuses()) {
          for (const [status, count] of Object.entries(s.requests.byStatus))
            this.inc({ prefix, feed: s.feed, status }, count ?? 0);
        }
      },
    });
    new Counter({
      name: 'threatlib_feed_requests_sent_total',
      help: 'Requests sent to each feed, retries included',
      labelNames: ['prefix', 'feed'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { prefix, s } of feedStatuses()) this.inc({ prefix, feed: s.feed }, s.requests.sent);
      },
    });
    new Counter({
      name: 'threatlib_cache_hits_total',
      help: 'Feed answers served from the cache',
      labelNames: ['prefix', 'feed'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { prefix, s } of feedStatuses()) this.inc({ prefix, feed: s.feed }, s.requests.cacheHits);
      },
    });
    new Gauge({
      name: 'threatlib_feed_breaker_state',
      help: 'Circuit breaker state per feed: 0 closed, 1 half open, 2 open',
      labelNames: ['prefix', 'feed'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { prefix, s } of feedStatuses()) this.set({ prefix, feed: s.feed }, BREAKER_VALUE[s.breaker.state]);
      },
    });
  }

  /** Records one answered request. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.#requests.inc({ method, route, status: String(status) });
    this.#duration.observe({ method, route }, seconds);
  }
}
