/**
 * At most `limit` requests in any `windowMs` span: the exact rule of a per-minute, per-hour or per-day quota. A ring
 * of the last `limit` grant times answers in O(1): a request may go when the ring is not full or its oldest grant
 * has left the window. (A token bucket would allow up to twice the quota in some windows, which vendors count as
 * violations.)
 */
export class SlidingWindow {
  readonly limit: number;
  readonly windowMs: number;
  /** Extra wait after a grant leaves the window, so a request sent on time cannot arrive early. */
  readonly marginMs: number;
  readonly #grants: number[];
  #start = 0;
  #size = 0;

  constructor(limit: number, windowMs: number, marginMs = 0) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.marginMs = marginMs;
    this.#grants = new Array<number>(limit);
  }

  #expire(now: number): void {
    while (this.#size > 0 && (this.#grants[this.#start] as number) <= now - this.windowMs - this.marginMs) {
      this.#start = (this.#start + 1) % this.limit;
      this.#size -= 1;
    }
  }

  /** Requests still allowed in the window ending at `now`. */
  remaining(now: number): number {
    this.#expire(now);
    return this.limit - this.#size;
  }

  /** When the next request may go. */
  nextAvailable(now: number): number {
    this.#expire(now);
    if (this.#size < this.limit) return now;
    return (this.#grants[this.#start] as number) + this.windowMs + this.marginMs + 1;
  }

  /** When the oldest grant leaves the window (undefined when empty). */
  resetsAt(now: number): number | undefined {
    this.#expire(now);
    return this.#size === 0 ? undefined : (this.#grants[this.#start] as number) + this.windowMs + this.marginMs + 1;
  }

  /** Records a request at `now`; the caller has checked `nextAvailable`. */
  take(now: number): void {
    this.#expire(now);
    const end = (this.#start + this.#size) % this.limit;
    this.#grants[end] = now;
    if (this.#size < this.limit) this.#size += 1;
    else this.#start = (this.#start + 1) % this.limit;
  }
}
