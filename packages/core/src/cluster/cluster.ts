import type { CacheStore } from '../cache/cache-store.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { Logger } from '../logging/logger.js';
import type { CircuitBreaker, FeedBreaker } from '../scheduler/circuit-breaker.js';
import type { Clock } from '../scheduler/clock.js';
import type { QuotaWindows } from '../scheduler/default-quotas.js';
import { ClusterCache } from './cluster-cache.js';
import { ClusterConnection } from './cluster-connection.js';
import { SharedAlertDedupe } from './shared-alert-dedupe.js';
import { SharedBreaker } from './shared-breaker.js';
import { SharedCampaigns } from './shared-campaigns.js';
import { SharedFlights } from './shared-flights.js';
import { loadRateLimiter, type RateLimiterModule, SharedQuota } from './shared-quota.js';

/** What a {@link Cluster} needs from its client. */
export interface ClusterDeps {
  config: ResolvedConfig;
  clock: Clock;
  logger: Logger;
  events: EventBus<ThreatEvents>;
  /** Loads the `redis` package (tests pass fakes; default `import('redis')`). */
  loadRedis?: () => Promise<unknown>;
}

/**
 * Everything a client shares with the other clients of its cluster (`cluster.enabled`), through the Redis server of
 * `cluster.kvserver`: each feed's quota ({@link SharedQuota}), in-flight lookups ({@link SharedFlights}), the verdict
 * cache, each feed's circuit breaker ({@link SharedBreaker}), alert deduplication and the campaign tracker.
 *
 * When Redis stops answering (a command fails or takes longer than `cluster.commandTimeout`), the client emits
 * `clusterDegraded` and each piece falls back to its local twin (the quotas to this process's share); it probes Redis
 * every second and emits `clusterRestored` once it answers, when sharing resumes.
 */
export class Cluster {
  readonly connection: ClusterConnection;
  readonly flights: SharedFlights;
  readonly alertDedupe: SharedAlertDedupe;
  readonly campaigns: SharedCampaigns | undefined;
  readonly #deps: ClusterDeps;
  readonly #gates = new Map<string, SharedQuota>();
  #limiters: Promise<RateLimiterModule> | undefined;
  /** When Redis stopped answering, while it does not. */
  #downSince: number | undefined;

  constructor(deps: ClusterDeps) {
    this.#deps = deps;
    const { cluster, campaigns } = deps.config;
    this.connection = new ClusterConnection({
      ...cluster.kvserver,
      commandTimeout: cluster.commandTimeout,
      connectTimeout: Math.max(1000, cluster.commandTimeout * 2),
      clock: deps.clock,
      logger: deps.logger,
      onState: (up, reason) => this.#changed(up, reason),
      ...(deps.loadRedis ? { loadRedis: deps.loadRedis } : {}),
    });
    this.flights = new SharedFlights(this.connection, deps.clock);
    this.alertDedupe = new SharedAlertDedupe(this.connection);
    this.campaigns = campaigns.enabled ? new SharedCampaigns(this.connection, campaigns) : undefined;
  }

  /** Connects (resolves either way: unreachable, the client runs degraded and keeps trying). */
  async start(): Promise<void> {
    await this.connection.start();
    await this.flights.start();
  }

  /** The shared quota of `feed` (made once per feed); `onRefreshed` runs each time its figures are read from Redis. */
  gateFor(feed: string, windows: QuotaWindows, onRefreshed?: () => void): SharedQuota {
    let gate = this.#gates.get(feed);
    if (!gate) {
      this.#limiters ??= loadRateLimiter();
      // An unloadable library is the local share's business (acquire falls back); nobody awaits this promise else.
      this.#limiters.catch(() => undefined);
      gate = new SharedQuota({
        connection: this.connection,
        feed,
        windows,
        expectedPeers: this.#deps.config.cluster.expectedPeers,
        limiters: this.#limiters,
        onRefreshed,
      });
      this.#gates.set(feed, gate);
    }
    return gate;
  }

  /** The shared breaker of `feed`, falling back to `local`. */
  breakerFor(feed: string, local: CircuitBreaker, onOpened: () => void): FeedBreaker {
    const { performance } = this.#deps.config;
    return new SharedBreaker({
      feed,
      local,
      connection: this.connection,
      breaker: performance.circuitBreaker,
      trialTtlMs: performance.requestTimeout + 5_000,
      onOpened,
    });
  }

  /**
   * The verdict cache every client of the cluster reads and fills: `caching.type: 'kvserver'` as configured, or else
   * (with `caching.enabled`) a kvserver cache on `cluster.kvserver` under `<keyPrefix>v:`. Undefined when caching is
   * off. While Redis is unreachable it answers "not cached" at once instead of failing each lookup.
   */
  verdictCache(make: () => CacheStore | undefined): CacheStore | undefined {
    const { caching } = this.#deps.config;
    if (!caching.enabled) return undefined;
    if (caching.type === 'kvserver') return make();
    return new ClusterCache(this.connection, { compression: caching.compression, now: () => this.#deps.clock.now() });
  }

  /** Whether Redis answers now, the peers counted there, and this process's share while it does not. */
  status(): { shared: boolean; address: string; peers: number; downSince?: string } {
    return {
      shared: this.connection.up,
      address: this.connection.address,
      peers: this.#peers(),
      ...(this.#downSince === undefined ? {} : { downSince: new Date(this.#downSince).toISOString() }),
    };
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    await this.connection.close();
  }

  #peers(): number {
    return Math.max(this.#deps.config.cluster.expectedPeers ?? 1, this.connection.peers);
  }

  #changed(up: boolean, reason: string): void {
    const { events, logger, clock } = this.#deps;
    if (up) {
      const since = this.#downSince;
      this.#downSince = undefined;
      if (since === undefined) {
        // The first connection: nothing was degraded, so nothing is restored.
        logger.info({ category: 'cluster', address: this.connection.address }, `cluster connected: ${reason}`);
        return;
      }
      logger.info({ category: 'cluster', address: this.connection.address }, `cluster restored: ${reason}`);
      events.emit('clusterRestored', { reason, address: this.connection.address, downMs: clock.now() - since });
      return;
    }
    this.#downSince ??= clock.now();
    const peers = this.#peers();
    logger.warn(
      { category: 'cluster', address: this.connection.address, peers },
      `cluster degraded: ${reason}; each feed's quota is kept locally at 1/${peers} until Redis answers again`,
    );
    events.emit('clusterDegraded', { reason, address: this.connection.address, peers });
  }
}
