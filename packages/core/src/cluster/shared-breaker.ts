import type { BreakerOptions, BreakerStatus, CircuitBreaker, FeedBreaker } from '../scheduler/circuit-breaker.js';
import type { ClusterConnection } from './cluster-connection.js';

/**
 * One feed's circuit breaker, shared by every client of a cluster: the failures any client counts within
 * `monitoringWindow` open it for all, it lets one trial through across the cluster after `resetTimeout`, and that
 * trial's outcome closes or reopens it for all.
 *
 * In Redis: the failures are a sorted set by time (`ZADD`, `ZREMRANGEBYSCORE`, `ZCARD` in one transaction); the open
 * breaker is a key holding when it opened (`SET NX`, so two clients opening it at once keep the first time); the
 * trial is a key only one client can set (`SET NX PX`, expiring if that client dies). While Redis cannot be reached,
 * the client's own breaker (`local`) decides, as without a cluster.
 */
export class SharedBreaker implements FeedBreaker {
  readonly #local: CircuitBreaker;
  readonly #connection: ClusterConnection;
  readonly #options: BreakerOptions;
  readonly #trialTtlMs: number;
  readonly #keys: { failures: string; open: string; trial: string };
  readonly #onOpened: () => void;
  /** Whether this client holds the cluster's trial. */
  #trial = false;
  #snapshot: BreakerStatus = { state: 'closed', failures: 0 };

  constructor(options: {
    feed: string;
    local: CircuitBreaker;
    connection: ClusterConnection;
    breaker: BreakerOptions;
    /** How long a trial may hold the breaker before another client may try, in ms. */
    trialTtlMs: number;
    /** This client opened the cluster's breaker (for the log line and the monitoring alert). */
    onOpened: () => void;
  }) {
    this.#local = options.local;
    this.#connection = options.connection;
    this.#options = options.breaker;
    this.#trialTtlMs = options.trialTtlMs;
    this.#onOpened = options.onOpened;
    const base = `${options.connection.keyPrefix}b:${options.feed}:`;
    this.#keys = { failures: `${base}failures`, open: `${base}open`, trial: `${base}trial` };
  }

  async tryAcquire(): Promise<boolean> {
    if (!this.#connection.up) return this.#local.tryAcquire();
    try {
      const opened = await this.#connection.run('GET breaker', (redis) => redis.get(this.#keys.open));
      const now = this.#connection.now();
      if (opened === null) {
        this.#snapshot = { state: 'closed', failures: this.#snapshot.failures };
        return true;
      }
      const openedAt = Number(opened);
      if (now < openedAt + this.#options.resetTimeout) {
        this.#snapshot = this.#openStatus(openedAt);
        return false;
      }
      const trial = await this.#connection.run('SET NX breaker trial', (redis) =>
        redis.set(this.#keys.trial, String(now), {
          condition: 'NX',
          expiration: { type: 'PX', value: this.#trialTtlMs },
        }),
      );
      this.#snapshot = { state: 'half_open', failures: 0 };
      this.#trial = trial === 'OK';
      return this.#trial;
    } catch {
      return this.#local.tryAcquire();
    }
  }

  success(): void {
    this.#local.success();
    if (!this.#trial) return;
    this.#trial = false;
    this.#snapshot = { state: 'closed', failures: 0 };
    void this.#connection
      .run('close breaker', (redis) => redis.del([this.#keys.open, this.#keys.trial, this.#keys.failures]))
      .catch(() => undefined);
  }

  failure(): void {
    this.#local.failure();
    if (!this.#connection.up) return;
    const trial = this.#trial;
    this.#trial = false;
    void this.#fail(trial).catch(() => undefined);
  }

  release(): void {
    this.#local.release();
    if (!this.#trial) return;
    this.#trial = false;
    void this.#connection.run('release breaker trial', (redis) => redis.del(this.#keys.trial)).catch(() => undefined);
  }

  status(): BreakerStatus {
    if (!this.#connection.up) return this.#local.status();
    const snapshot = this.#snapshot;
    if (snapshot.state === 'open' && snapshot.nextTrialAt && Date.parse(snapshot.nextTrialAt) <= this.#localNow()) {
      return { state: 'half_open', failures: 0 };
    }
    return { ...snapshot };
  }

  async #fail(trial: boolean): Promise<void> {
    const now = this.#connection.now();
    const keep = this.#options.resetTimeout + this.#options.monitoringWindow;
    if (trial) {
      // The trial failed: open again from now, for every client.
      await this.#connection.run('reopen breaker', (redis) =>
        redis.set(this.#keys.open, String(now), { expiration: { type: 'PX', value: keep } }),
      );
      await this.#connection.run('end breaker trial', (redis) => redis.del(this.#keys.trial));
      this.#snapshot = this.#openStatus(now);
      return;
    }
    const replies = await this.#connection.run('count breaker failures', (redis) =>
      redis
        .multi()
        .zAdd(this.#keys.failures, { score: now, value: globalThis.crypto.randomUUID() })
        .zRemRangeByScore(this.#keys.failures, '-inf', now - this.#options.monitoringWindow)
        .zCard(this.#keys.failures)
        .pExpire(this.#keys.failures, this.#options.monitoringWindow)
        .exec(),
    );
    const failures = Number(replies[2] ?? 0);
    this.#snapshot = { ...this.#snapshot, failures };
    if (failures < this.#options.failureThreshold) return;
    const opened = await this.#connection.run('open breaker', (redis) =>
      redis.set(this.#keys.open, String(now), { condition: 'NX', expiration: { type: 'PX', value: keep } }),
    );
    if (opened !== 'OK') return;
    await this.#connection.run('reset breaker failures', (redis) => redis.del(this.#keys.failures));
    this.#snapshot = this.#openStatus(now);
    this.#onOpened();
  }

  #openStatus(openedAt: number): BreakerStatus {
    const offset = this.#connection.offsetMs;
    return {
      state: 'open',
      failures: 0,
      openedAt: new Date(openedAt - offset).toISOString(),
      nextTrialAt: new Date(openedAt + this.#options.resetTimeout - offset).toISOString(),
    };
  }

  #localNow(): number {
    return this.#connection.now() - this.#connection.offsetMs;
  }
}
