/** How long `GET /health` reuses a probe's result unless the server is told otherwise, in ms. */
export const DEFAULT_HEALTH_CACHE_MS = 5_000;

/**
 * A probe's result, reused for `ttlMs` after it settles, and shared by every caller while it runs: `/health` needs
 * no authentication, and each probe writes, reads and deletes a cache entry and asks every integration, so a caller
 * must not be able to make the server probe on each request. A probe that fails is not kept. `ttlMs: 0` probes on
 * every call (concurrent calls still share one probe).
 */
export class ProbeCache<T> {
  readonly #probe: () => Promise<T>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #running: Promise<T> | undefined;
  #result: { value: T; at: number } | undefined;

  constructor(probe: () => Promise<T>, options: { ttlMs: number; now?: () => number }) {
    if (!Number.isFinite(options.ttlMs) || options.ttlMs < 0) {
      throw new RangeError(`the health cache time must be 0 or more milliseconds, not ${options.ttlMs}`);
    }
    this.#probe = probe;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? (() => Date.now());
  }

  /** The last result if it is fresh enough, else the result of a new probe (or of the one running). */
  get(): Promise<T> {
    const result = this.#result;
    if (result && this.#now() - result.at < this.#ttlMs) return Promise.resolve(result.value);
    if (this.#running) return this.#running;
    const running = this.#probe().then(
      (value) => {
        this.#result = { value, at: this.#now() };
        this.#running = undefined;
        return value;
      },
      (error: unknown) => {
        this.#running = undefined;
        throw error;
      },
    );
    this.#running = running;
    return running;
  }
}
