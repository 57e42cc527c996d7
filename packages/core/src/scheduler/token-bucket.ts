/**
 * A token bucket: up to `capacity` requests at once, refilled continuously at `ratePerSecond`. Models a per-second
 * rate with a burst allowance.
 */
export class TokenBucket {
  readonly capacity: number;
  readonly ratePerMs: number;
  #tokens: number;
  #updated: number;

  constructor(ratePerSecond: number, capacity: number, now: number, tokens = capacity) {
    this.capacity = capacity;
    this.ratePerMs = ratePerSecond / 1000;
    this.#tokens = Math.min(capacity, tokens);
    this.#updated = now;
  }

  #refill(now: number): void {
    if (now > this.#updated) {
      this.#tokens = Math.min(this.capacity, this.#tokens + (now - this.#updated) * this.ratePerMs);
      this.#updated = now;
    }
  }

  /** Whole tokens available at `now`. */
  remaining(now: number): number {
    this.#refill(now);
    return Math.floor(this.#tokens + 1e-9);
  }

  /** When the next token is available (now when one is). */
  nextAvailable(now: number): number {
    this.#refill(now);
    if (this.#tokens >= 1 - 1e-9) return now;
    return now + ceilMs((1 - this.#tokens) / this.ratePerMs);
  }

  /** Takes one token; the caller has checked `nextAvailable`. */
  take(now: number): void {
    this.#refill(now);
    this.#tokens -= 1;
  }

  /** Gives back a token taken for a request that did not go after all. */
  giveBack(): void {
    this.#tokens = Math.min(this.capacity, this.#tokens + 1);
  }

  /** When the bucket is full again. */
  fullAt(now: number): number {
    this.#refill(now);
    return now + ceilMs((this.capacity - this.#tokens) / this.ratePerMs);
  }
}

/** Rounds a wait up to whole milliseconds, ignoring floating-point dust (99.000000001 ms is 99 ms). */
function ceilMs(ms: number): number {
  return Math.ceil(ms - 1e-6);
}
