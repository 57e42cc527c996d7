import type { QuotaLowEvent } from '../events/threat-events.js';
import type { WindowStatus } from './feed-quota.js';

const BUDGET_WINDOWS: ReadonlySet<string> = new Set(['minute', 'hour', 'day']);

/**
 * Tells when little is left of a feed's minute, hour or day window: `remaining <= threshold × limit`
 * (`performance.rateLimit.quotaLowThreshold`, a tenth by default). Once per window until it has more room again. The
 * per-second window is left out: a busy client empties it every second by design.
 */
export class QuotaLowWatch {
  readonly #threshold: number;
  readonly #emit: (event: QuotaLowEvent) => void;
  /** `feed\0window` of the windows low now. */
  readonly #low = new Set<string>();

  constructor(threshold: number, emit: (event: QuotaLowEvent) => void) {
    this.#threshold = threshold;
    this.#emit = emit;
  }

  /** Looks at what is left of `feed`'s windows (after a request was let go). */
  check(feed: string, windows: readonly WindowStatus[], shared: boolean): void {
    for (const status of windows) {
      if (!BUDGET_WINDOWS.has(status.window)) continue;
      const key = `${feed}\0${status.window}`;
      if (status.remaining > this.#threshold * status.limit) {
        this.#low.delete(key);
        continue;
      }
      if (this.#low.has(key)) continue;
      this.#low.add(key);
      this.#emit({
        feed,
        window: status.window as QuotaLowEvent['window'],
        limit: status.limit,
        remaining: status.remaining,
        ...(status.resetsAt ? { resetsAt: status.resetsAt } : {}),
        shared,
      });
    }
  }
}
