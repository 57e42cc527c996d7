/** A feed's quota: a token bucket of `burst` tokens refilled continuously at `requestsPerSecond`. */
export interface Quota {
  requestsPerSecond: number;
  burst: number;
}

/** What the bucket decided about one request, and its state afterwards (for the `X-RateLimit-*` headers). */
export interface TokenDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** For a refused request: ms until one token is available. 0 when allowed. */
  waitMs: number;
  /** ms until the bucket is full again. */
  fullInMs: number;
}

/**
 * A token bucket checked on each request's arrival: it starts full, every admitted request takes one token, and
 * tokens come back continuously. A refused request takes nothing, so a client that waits the announced time is
 * admitted.
 */
export class TokenBucket {
  readonly quota: Quota;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  /** @param now a monotonic clock in ms (`performance.now` in the emulator). */
  constructor(quota: Quota, now: () => number) {
    if (!(quota.requestsPerSecond > 0) || !(quota.burst >= 1)) {
      throw new RangeError(
        `quota invalid: requestsPerSecond must be > 0 and burst >= 1, got ${quota.requestsPerSecond} and ${quota.burst}`,
      );
    }
    this.quota = quota;
    this.#now = now;
    this.#tokens = quota.burst;
    this.#at = now();
  }

  /** Takes a token for a request that arrived at `at` (default: now). */
  take(at = this.#now()): TokenDecision {
    this.#refillTo(at);
    const allowed = this.#tokens >= 1;
    if (allowed) this.#tokens -= 1;
    return {
      allowed,
      remaining: Math.floor(this.#tokens),
      waitMs: allowed ? 0 : ((1 - this.#tokens) * 1000) / this.quota.requestsPerSecond,
      fullInMs: this.#fullInMs(),
    };
  }

  /** The bucket's state at `at` (default: now) without taking a token. */
  peek(at = this.#now()): { remaining: number; fullInMs: number } {
    this.#refillTo(at);
    return { remaining: Math.floor(this.#tokens), fullInMs: this.#fullInMs() };
  }

  #refillTo(at: number): void {
    // Arrival times can be slightly out of order when requests are handled in one tick; never refill backwards.
    if (at <= this.#at) return;
    this.#tokens = Math.min(this.quota.burst, this.#tokens + ((at - this.#at) * this.quota.requestsPerSecond) / 1000);
    this.#at = at;
  }

  #fullInMs(): number {
    return ((this.quota.burst - this.#tokens) * 1000) / this.quota.requestsPerSecond;
  }

  /** Fills the bucket again. */
  refill(): void {
    this.#tokens = this.quota.burst;
    this.#at = this.#now();
  }
}
