import type { MonitoringCondition } from './monitoring-alert.js';

/**
 * Lets one alert per feed and condition through per `cooldownMs`: a feed refusing its key refuses it on every
 * lookup, and a breaker reopens after each failed trial, but a person wants to hear of it once, not a thousand times.
 */
export class AlertCooldown {
  readonly #cooldownMs: number;
  readonly #now: () => number;
  readonly #lastSent = new Map<string, number>();

  constructor(cooldownMs: number, now: () => number) {
    this.#cooldownMs = cooldownMs;
    this.#now = now;
  }

  /** Whether an alert about `feed` and `condition` may go now; if so, the cooldown starts again from now. */
  admit(feed: string, condition: MonitoringCondition): boolean {
    const key = `${condition}\u0000${feed}`;
    const now = this.#now();
    const last = this.#lastSent.get(key);
    if (last !== undefined && now - last < this.#cooldownMs) return false;
    this.#lastSent.set(key, now);
    return true;
  }
}
