/**
 * Remembers which indicators raised an alert in the last `windowMs`, so that the same indicator concluded again
 * within the window raises no second alert. A window of 0 remembers nothing. Bounded: past `maxKeys` indicators
 * the oldest are forgotten first (their next conclusion raises an alert again, which is the safe side).
 */
export class AlertDedupe {
  /** Key → when it last raised an alert; insertion order is time order (a key raised again moves to the end). */
  readonly #raised = new Map<string, number>();
  readonly #windowMs: number;
  readonly #maxKeys: number;

  constructor(windowMs: number, maxKeys = 100_000) {
    this.#windowMs = windowMs;
    this.#maxKeys = maxKeys;
  }

  /**
   * Whether `key` may raise an alert at `now`: true (and remembered from `now`) unless it raised one less than
   * `windowMs` ago.
   */
  admit(key: string, now: number): boolean {
    if (this.#windowMs <= 0) return true;
    this.#forgetBefore(now - this.#windowMs);
    const last = this.#raised.get(key);
    if (last !== undefined && now - last < this.#windowMs) return false;
    this.#raised.delete(key);
    this.#raised.set(key, now);
    if (this.#raised.size > this.#maxKeys) {
      const oldest = this.#raised.keys().next().value;
      if (oldest !== undefined) this.#raised.delete(oldest);
    }
    return true;
  }

  /**
   * Forgets `key`, so that its next conclusion raises an alert again: for an alert that did not reach every
   * integration, which must not keep the next one away.
   */
  forget(key: string): void {
    this.#raised.delete(key);
  }

  /** Indicators remembered now. */
  get size(): number {
    return this.#raised.size;
  }

  #forgetBefore(limit: number): void {
    for (const [key, at] of this.#raised) {
      // A clock stepped back leaves a later time first; it is forgotten once the window passes it.
      if (at > limit) break;
      this.#raised.delete(key);
    }
  }
}
