// A timer for a moment that moves: the vault's auto-lock (the last use plus lockTimeout) and its next rotation. It is
// armed once and, when it fires before the moment (the vault was used since), re-arms for the rest, so a busy vault
// costs no timer churn. Its timers never keep a process alive.
import { type Clock, MAX_TIMER_MS } from '../scheduler/clock.js';

/** One re-arming timer on `clock`. */
export class DueTimer {
  readonly #clock: Clock;
  #handle: unknown;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Calls `onDue` once the time `dueAt()` returns has come, reading `dueAt()` again each time the timer fires;
   * `dueAt()` returning undefined (the vault locked meanwhile) ends it. Replaces the timer armed before.
   */
  arm(dueAt: () => number | undefined, onDue: () => void): void {
    this.cancel();
    const fire = () => {
      this.#handle = undefined;
      const due = dueAt();
      if (due === undefined) return;
      const remaining = due - this.#clock.now();
      if (remaining > 0) this.#handle = this.#schedule(fire, remaining);
      else onDue();
    };
    const due = dueAt();
    if (due !== undefined) this.#handle = this.#schedule(fire, due - this.#clock.now());
  }

  /** Stops the timer, if armed. */
  cancel(): void {
    if (this.#handle !== undefined) this.#clock.clearTimeout(this.#handle);
    this.#handle = undefined;
  }

  #schedule(fire: () => void, ms: number): unknown {
    const handle = this.#clock.setTimeout(fire, Math.min(Math.max(0, ms), MAX_TIMER_MS), { unref: true });
    // A third-party clock may ignore the option; a vault timer must never keep the process alive.
    (handle as { unref?: () => void } | undefined)?.unref?.();
    return handle;
  }
}
