/**
 * Runs at most `limit` tasks at once; the others wait in FIFO order. The limit can change at any time: raising it
 * starts waiting tasks at once, lowering it lets running tasks finish and holds the queue until the count drops.
 * Nothing queued is ever dropped.
 */
export class ConcurrencyLimiter {
  #limit: number;
  #running = 0;
  readonly #queue: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** How many tasks may run at once. */
  get limit(): number {
    return this.#limit;
  }

  /** How many tasks run now. */
  get running(): number {
    return this.#running;
  }

  /** How many tasks wait for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Changes the limit, applying it to queued work. */
  setLimit(limit: number): void {
    this.#limit = limit;
    this.#drain();
  }

  /**
   * Runs `task` when a slot is free. If `signal` aborts while the task still waits, it leaves the queue and the
   * promise rejects with the signal's reason.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#running += 1;
        task()
          .then(resolve, reject)
          .finally(() => {
            this.#running -= 1;
            this.#drain();
          });
      };
      const onAbort = () => {
        const index = this.#queue.indexOf(start);
        if (index !== -1) this.#queue.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(start);
      this.#drain();
    });
  }

  #drain(): void {
    while (this.#running < this.#limit && this.#queue.length > 0) {
      this.#queue.shift()?.();
    }
  }
}
