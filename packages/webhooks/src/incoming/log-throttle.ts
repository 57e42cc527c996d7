import type { Clock } from '@threatlib/core/integration';

/**
 * Lets one log line through per `intervalMs` for a kind of event that an outsider can repeat at will (a refused
 * signature, a replay), counting those held back: a flood of them must not flood the log.
 */
export class LogThrottle {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  #unlogged = 0;
  #lastLog = Number.NEGATIVE_INFINITY;

  constructor(clock: Clock, intervalMs: number) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /**
   * Counts one occurrence; returns how many occurred since the last line (this one included) when a line is due now,
   * else undefined.
   */
  due(): number | undefined {
    this.#unlogged++;
    const now = this.#clock.now();
    if (now - this.#lastLog < this.#intervalMs) return undefined;
    const count = this.#unlogged;
    this.#unlogged = 0;
    this.#lastLog = now;
    return count;
  }
}
