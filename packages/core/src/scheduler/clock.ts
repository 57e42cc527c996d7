/** Options of {@link Clock.setTimeout}. */
export interface TimerOptions {
  /**
   * Let the process exit while the timer is pending (Node's `timer.unref()`). For housekeeping that nobody awaits,
   * such as the vault's auto-lock: a script that is done must not stay alive just to lock a vault. Default false.
   */
  unref?: boolean;
}

/**
 * Time as the scheduler, breakers, caches and the vault see it. Injectable so that tests of rate windows, pauses
 * and breaker transitions advance time instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Calls `callback` after `ms`. The timer keeps the process alive: work waiting on it (a queued request, a retry)
   * is work a caller awaits, unless `options.unref` says otherwise. Whoever sets a timer clears it when the work is
   * cancelled or the client stops.
   */
  setTimeout(callback: () => void, ms: number, options?: TimerOptions): unknown;
  /** Cancels a timer `setTimeout` returned. */
  clearTimeout(handle: unknown): void;
}

/**
 * The longest wait a timer can hold (Node's `setTimeout` limit, about 24.8 days). Node fires a longer one after 1 ms
 * instead, so a wait past it (a feed's `Retry-After` weeks ahead) would wake its owner in a busy loop.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** The real clock: `Date.now` and ordinary timers; a wait past {@link MAX_TIMER_MS} wakes its owner early. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms, options) {
    const timer = setTimeout(callback, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
    // A page's timers are numbers, with no process to keep alive.
    if (options?.unref) (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/**
 * A clock that moves only when told to. `advance(ms)` runs every timer that falls due, in time order, letting
 * promise callbacks settle between them.
 *
 * @example
 * ```ts
 * const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * const client = new ThreatClient(config, { clock });
 * await clock.advance(60_000); // a minute passes
 * ```
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Registers `callback` to run when `advance` passes `now() + ms`; `unref` changes nothing here (no process). */
  setTimeout(callback: () => void, ms: number, _options?: TimerOptions): unknown {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** How many timers are pending. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing due timers in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await settle();
      let nextId: number | undefined;
      let next: { at: number; callback: () => void } | undefined;
      for (const [id, timer] of this.#timers) {
        if (timer.at <= target && (!next || timer.at < next.at)) {
          next = timer;
          nextId = id;
        }
      }
      if (!next || nextId === undefined) break;
      this.#timers.delete(nextId);
      this.#now = Math.max(this.#now, next.at);
      next.callback();
    }
    this.#now = target;
    await settle();
  }
}

async function settle(): Promise<void> {
  // Several turns: a callback may resolve a promise whose continuation schedules more work.
  // setImmediate in Node.js (after I/O callbacks); a page has none, and a zero timeout is its nearest turn.
  const { setImmediate } = globalThis as { setImmediate?: (callback: () => void) => unknown };
  const turn = (resolve: () => void) => (setImmediate ? setImmediate(resolve) : setTimeout(resolve, 0));
  for (let i = 0; i < 10; i++) await new Promise<void>(turn);
}
