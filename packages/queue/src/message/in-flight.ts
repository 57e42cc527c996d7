import type { Clock } from '@threatlib/core/integration';

/** Counts handlers still running, so that `stop()` can wait for them (up to a deadline) before closing. */
export class InFlight {
  #count = 0;
  #waiters: Array<() => void> = [];

  /** Handlers running now. */
  get count(): number {
    return this.#count;
  }

  /** Runs `work`, counted while it runs. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.#count += 1;
    try {
      return await work();
    } finally {
      this.#count -= 1;
      if (this.#count === 0) {
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
      }
    }
  }

  /** Resolves `true` once nothing runs, or `false` after `timeout` ms with handlers still running. */
  drain(timeout: number, clock: Clock): Promise<boolean> {
    if (this.#count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clock.clearTimeout(timer);
        resolve(true);
      };
      const timer = clock.setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve(false);
      }, timeout);
      this.#waiters.push(wake);
    });
  }
}
