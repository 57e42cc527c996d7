import type { ThreatClient } from '@threatlib/core';
import { createClientMetrics } from '@threatlib/core/metrics';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { RequestMetrics } from './request-metrics.js';

/**
 * The Prometheus metrics the server exposes at `/metrics`: HTTP requests and latency by route and status, process
 * metrics, and each mounted client's metrics from `@threatlib/core/metrics` (feed results by status, requests sent,
 * cache hits, breaker states, refused keys, monitoring alerts), read when scraped and labelled with its `prefix`.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #requests: RequestMetrics;

  constructor(clients: () => ReadonlyArray<{ prefix: string; client: ThreatClient }>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'threatlib_process_' });
    this.#requests = new RequestMetrics(this.registry);
    // The per-client series are core's own (`@threatlib/core/metrics`), labelled with each client's mount prefix.
    createClientMetrics(() => clients().map(({ prefix, client }) => ({ client, labels: { prefix } })), {
      registry: this.registry,
      labelNames: ['prefix'],
    });
  }

  /** Records one answered request. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.#requests.observe(method, route, status, seconds);
  }
}
