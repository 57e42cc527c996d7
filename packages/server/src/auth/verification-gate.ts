import type { AuthFailureLimiter } from './auth-failure-limiter.js';

interface Turn {
  start: () => void;
  refuse: () => void;
}

interface Queue {
  running: number;
  waiting: Turn[];
}

/**
 * Lets an address have no more credential checks running at once than it has failures left before its block.
 * A check that takes time (a JWT signature, an scrypt hash, a token introspection) counts as a failure only once it
 * has failed; without this gate, a client could send a thousand guesses in one packet (pipelined) or one event-loop
 * turn, all checked before the first failure is counted, and the limit would bound nothing. With it, a guess waits
 * for the ones before it, and once the address is blocked every waiting guess is refused unchecked. A client with
 * valid credentials waits for nothing: its checks succeed and free their place at once.
 */
export class VerificationGate {
  readonly #failures: AuthFailureLimiter;
  readonly #maxWaiting: number;
  readonly #queues = new Map<string, Queue>();

  /** @param maxWaiting checks one address may have waiting; one more is refused at once. */
  constructor(failures: AuthFailureLimiter, maxWaiting = 256) {
    this.#failures = failures;
    this.#maxWaiting = maxWaiting;
  }

  /**
   * Calls `start` now when `address` has a place, later when one frees up, or `refuse` (the address is blocked, or
   * too many of its checks are waiting). `start` must end with {@link leave}, after any failure is recorded.
   */
  enter(address: string, start: () => void, refuse: () => void): void {
    let queue = this.#queues.get(address);
    if (!queue) {
      queue = { running: 0, waiting: [] };
      this.#queues.set(address, queue);
    }
    if (queue.waiting.length === 0 && queue.running < this.#failures.remaining(address)) {
      queue.running++;
      start();
      return;
    }
    if (queue.waiting.length >= this.#maxWaiting || this.#failures.blockedFor(address) > 0) {
      this.#forgetIfIdle(address, queue);
      refuse();
      return;
    }
    queue.waiting.push({ start, refuse });
  }

  /** A check of `address` has ended: the next one waiting starts, or all are refused once the address is blocked. */
  leave(address: string): void {
    const queue = this.#queues.get(address);
    if (!queue) return;
    queue.running--;
    if (this.#failures.blockedFor(address) > 0) {
      for (const turn of queue.waiting.splice(0)) turn.refuse();
    }
    while (queue.waiting.length > 0 && queue.running < this.#failures.remaining(address)) {
      queue.running++;
      queue.waiting.shift()?.start();
    }
    this.#forgetIfIdle(address, queue);
  }

  #forgetIfIdle(address: string, queue: Queue): void {
    if (queue.running === 0 && queue.waiting.length === 0) this.#queues.delete(address);
  }
}
