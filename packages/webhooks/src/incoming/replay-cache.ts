/** The answer a message got, replayed to a request repeating it. */
export interface ReplayOutcome {
  status: number;
}

/** What {@link ReplayCache.once} did with a message. */
export type OnceResult<Outcome extends ReplayOutcome> =
  /** It ran the handling; `outcome` is its answer. */
  | { kind: 'ran'; outcome: Outcome }
  /** The message was handled already (204) or is being handled (that run's answer): nothing ran. */
  | { kind: 'replayed'; outcome: Outcome | ReplayOutcome }
  /** The message was received for another event, `boundTo`: nothing ran. */
  | { kind: 'conflict'; boundTo: string };

interface Seen {
  /** The event the message was received for: it may run for no other. */
  event: string;
  /** Whether a run of it ended in a 2xx: a repeat is then answered 204 without running. */
  handled: boolean;
  /** Epoch ms after which it is forgotten. */
  forgetAt: number;
}

/**
 * The messages received, so that one signed message runs the handlers of one event, once: a message received again
 * (a replay, or a sender retrying a delivery that did succeed) is answered without running its handlers twice, and a
 * message received for one event is refused for any other (the event may come from the path, which no scheme signs).
 *
 * Every message that reached its event is remembered, whatever its answer, until `replayableUntil`; at most
 * `maxEntries` are kept, the oldest forgotten first (`onEarlyEviction` is told when one goes before its time). While a
 * message is being handled, a second request for it and the same event waits for the first one's answer.
 */
export class ReplayCache<Outcome extends ReplayOutcome = ReplayOutcome> {
  readonly #maxEntries: number;
  readonly #onEarlyEviction: (() => void) | undefined;
  /** Messages seen, in the order they were last run (the oldest first). */
  readonly #seen = new Map<string, Seen>();
  readonly #inFlight = new Map<string, { event: string; run: Promise<Outcome> }>();

  constructor(maxEntries: number, onEarlyEviction?: () => void) {
    this.#maxEntries = maxEntries;
    this.#onEarlyEviction = onEarlyEviction;
  }

  /** Messages remembered now. */
  get size(): number {
    return this.#seen.size;
  }

  /**
   * Runs `handle` for the message `key` received for `event`, unless it was received for another event (conflict),
   * was handled already (replayed: 204) or is being handled (replayed: that run's answer). The message is remembered
   * with its event until `replayableUntil` whatever the answer; an answer other than 2xx lets a repeat for the same
   * event run again (the sender's retry).
   */
  async once(
    key: string,
    event: string,
    nowMs: number,
    replayableUntil: number,
    handle: () => Promise<Outcome>,
  ): Promise<OnceResult<Outcome>> {
    let seen = this.#seen.get(key);
    if (seen !== undefined && seen.forgetAt <= nowMs) {
      this.#seen.delete(key);
      seen = undefined;
    }
    if (seen !== undefined) {
      if (seen.event !== event) return { kind: 'conflict', boundTo: seen.event };
      if (seen.handled) return { kind: 'replayed', outcome: { status: 204 } };
    }
    const running = this.#inFlight.get(key);
    if (running) {
      if (running.event !== event) return { kind: 'conflict', boundTo: running.event };
      return { kind: 'replayed', outcome: await running.run };
    }
    const run = handle();
    this.#inFlight.set(key, { event, run });
    let handled = false;
    try {
      const outcome = await run;
      handled = outcome.status >= 200 && outcome.status < 300;
      return { kind: 'ran', outcome };
    } finally {
      this.#inFlight.delete(key);
      this.#remember(key, { event, handled, forgetAt: Math.max(replayableUntil, seen?.forgetAt ?? 0) }, nowMs);
    }
  }

  #remember(key: string, entry: Seen, nowMs: number): void {
    // Moved to the newest end: the oldest end is where expired entries are looked for, and evicted from.
    this.#seen.delete(key);
    this.#seen.set(key, entry);
    for (const [oldest, { forgetAt }] of this.#seen) {
      if (forgetAt > nowMs && this.#seen.size <= this.#maxEntries) break;
      this.#seen.delete(oldest);
      if (forgetAt > nowMs) this.#onEarlyEviction?.();
    }
  }
}
