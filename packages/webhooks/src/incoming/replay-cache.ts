/** The answer a message got, replayed to a request repeating its id. */
export interface ReplayOutcome {
  status: number;
}

/**
 * The message ids seen, so that a message received again (a replay, or a sender retrying a delivery that did
 * succeed) is answered without running its handler twice. An id is remembered until `replayableUntil` (after which
 * its signature no longer verifies anyway); at most `maxEntries` are kept, the oldest forgotten first. While a
 * message is being handled, a second request with its id waits for the first one's answer.
 */
export class ReplayCache<Outcome extends ReplayOutcome = ReplayOutcome> {
  readonly #maxEntries: number;
  /** Handled ids and when to forget each, in insertion order (the oldest first). */
  readonly #done = new Map<string, number>();
  readonly #inFlight = new Map<string, Promise<Outcome>>();

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** Ids remembered now. */
  get size(): number {
    return this.#done.size;
  }

  /**
   * Runs `handle` for message `id` unless it was handled already (resolves `{status: 204}` then, without running it)
   * or is being handled (resolves with that run's outcome). A run that ends in a 2xx marks the id handled until
   * `replayableUntil`; any other outcome leaves it unmarked, so that the sender's retry runs the handler again.
   */
  async once(
    id: string,
    nowMs: number,
    replayableUntil: number,
    handle: () => Promise<Outcome>,
  ): Promise<(Outcome | ReplayOutcome) & { replayed: boolean }> {
    const forgetAt = this.#done.get(id);
    if (forgetAt !== undefined) {
      if (forgetAt > nowMs) return { status: 204, replayed: true };
      this.#done.delete(id);
    }
    const running = this.#inFlight.get(id);
    if (running) return { ...(await running), replayed: true };
    const run = handle();
    this.#inFlight.set(id, run);
    try {
      const outcome = await run;
      if (outcome.status >= 200 && outcome.status < 300) this.#remember(id, nowMs, replayableUntil);
      return { ...outcome, replayed: false };
    } finally {
      this.#inFlight.delete(id);
    }
  }

  #remember(id: string, nowMs: number, until: number): void {
    this.#done.set(id, until);
    // Expired ids are dropped from the oldest end; then the oldest go while the cache is over its size.
    for (const [oldest, forgetAt] of this.#done) {
      if (forgetAt > nowMs && this.#done.size <= this.#maxEntries) break;
      this.#done.delete(oldest);
    }
  }
}
