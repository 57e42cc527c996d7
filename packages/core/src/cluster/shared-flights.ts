import type { Clock } from '../scheduler/clock.js';
import type { ClusterConnection } from './cluster-connection.js';

/** How long a flight's lock lives without being renewed, in ms: how long others wait for a client that died. */
const LOCK_TTL_MS = 10_000;
/** How long the answer of a flight stays readable for those that waited for it, in ms. */
const ANSWER_TTL_MS = 30_000;
/** How often a waiting client looks for the answer besides the published notice, in ms. */
const POLL_MS = 250;

// The standard single-instance Redis lock (redis.io, "Distributed locks with Redis"): only the holder of the token
// renews or releases it.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * In-flight deduplication across the clients of a cluster: while one client asks a feed about an indicator, every
 * other client asking the same waits for that answer instead of sending its own.
 *
 * The first to ask takes a lock (`SET NX PX`, renewed while it works) and, once it has the answer, stores it for a
 * short while, publishes a notice and releases the lock. The others find the lock taken and wait for the notice (and
 * look every 250 ms, so a lost notice costs a moment, not the answer); if the lock goes without an answer (its holder
 * died or gave up), the next one takes it. While Redis cannot be reached, each client asks for itself.
 */
export class SharedFlights {
  readonly #connection: ClusterConnection;
  readonly #clock: Clock;
  readonly #waiters = new Map<string, Set<() => void>>();
  #subscribed: Promise<void> | undefined;

  constructor(connection: ClusterConnection, clock: Clock) {
    this.#connection = connection;
    this.#clock = clock;
  }

  /** Listens for the notices of finished flights (once). */
  start(): Promise<void> {
    this.#subscribed ??= this.#connection
      .subscribe('flights', (key) => {
        for (const wake of this.#waiters.get(key) ?? []) wake();
      })
      .catch(() => undefined);
    return this.#subscribed;
  }

  /**
   * Runs `work` for `key` unless another client of the cluster is doing the same: then resolves with its answer
   * (and calls `onShared`). Rejects with `signal`'s reason as soon as it aborts.
   */
  async run<T>(
    key: string,
    work: () => Promise<T>,
    options: { signal: AbortSignal; onShared?: () => void },
  ): Promise<T> {
    const lock = `${this.#connection.keyPrefix}f:${key}`;
    const answer = `${this.#connection.keyPrefix}a:${key}`;
    for (;;) {
      options.signal.throwIfAborted();
      if (!this.#connection.up) return work();
      const token = globalThis.crypto.randomUUID();
      let taken: boolean;
      try {
        taken =
          (await this.#connection.run('SET NX flight', (redis) =>
            redis.set(lock, token, { condition: 'NX', expiration: { type: 'PX', value: LOCK_TTL_MS } }),
          )) === 'OK';
      } catch {
        return work();
      }
      if (taken) {
        // The one before may have finished between this client's cache check and its lock: its answer is still here.
        const earlier = await this.#connection.run('GET flight answer', (redis) => redis.get(answer)).catch(() => null);
        if (earlier !== null) {
          void this.#release(lock, token);
          options.onShared?.();
          return JSON.parse(earlier) as T;
        }
        return this.#own(key, lock, answer, token, work);
      }
      const shared = await this.#wait(key, lock, answer, options.signal);
      if (shared !== undefined) {
        options.onShared?.();
        return JSON.parse(shared) as T;
      }
    }
  }

  async #own<T>(key: string, lock: string, answer: string, token: string, work: () => Promise<T>): Promise<T> {
    let renewal: unknown;
    const renew = () => {
      renewal = this.#clock.setTimeout(
        () => {
          void this.#connection
            .run('renew flight', (redis) =>
              redis.eval(RENEW, { keys: [lock], arguments: [token, String(LOCK_TTL_MS)] }),
            )
            .catch(() => undefined);
          renew();
        },
        LOCK_TTL_MS / 3,
        { unref: true },
      );
    };
    renew();
    try {
      const result = await work();
      this.#clock.clearTimeout(renewal);
      try {
        // The answer first, then the notice, then the lock: a client that finds no lock always finds the answer.
        await this.#connection.run('SET flight answer', (redis) =>
          redis.set(answer, JSON.stringify(result), { expiration: { type: 'PX', value: ANSWER_TTL_MS } }),
        );
        await this.#connection.publish('flights', key);
      } catch {
        // Those waiting find the lock gone and ask for themselves.
      }
      return result;
    } finally {
      this.#clock.clearTimeout(renewal);
      void this.#release(lock, token);
    }
  }

  async #release(lock: string, token: string): Promise<void> {
    await this.#connection
      .run('release flight', (redis) => redis.eval(RELEASE, { keys: [lock], arguments: [token] }))
      .catch(() => undefined);
  }

  /** The answer of the client holding `lock`, or undefined when the lock went without one (or Redis did). */
  #wait(key: string, lock: string, answer: string, signal: AbortSignal): Promise<string | undefined> {
    return new Promise<string | undefined>((resolve, reject) => {
      let done = false;
      let timer: unknown;
      let checking = false;
      const finish = (value: string | undefined, error?: unknown) => {
        if (done) return;
        done = true;
        this.#clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const set = this.#waiters.get(key);
        set?.delete(check);
        if (set?.size === 0) this.#waiters.delete(key);
        if (error !== undefined) reject(error);
        else resolve(value);
      };
      const onAbort = () => finish(undefined, signal.reason);
      const check = () => {
        if (done || checking) return;
        checking = true;
        // Both at once: the answer is written before the lock is released, so no answer and no lock means none.
        this.#connection
          .run('MGET flight', (redis) => redis.mGet([answer, lock]))
          .then(
            ([value, held]) => {
              checking = false;
              if (typeof value === 'string') finish(value);
              else if (held === null) finish(undefined);
              else poll();
            },
            () => finish(undefined),
          );
      };
      const poll = () => {
        if (done) return;
        this.#clock.clearTimeout(timer);
        timer = this.#clock.setTimeout(check, POLL_MS);
      };
      let set = this.#waiters.get(key);
      if (!set) {
        set = new Set();
        this.#waiters.set(key, set);
      }
      set.add(check);
      signal.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}
