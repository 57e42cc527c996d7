import { utf8Length } from '../bytes/host-bytes.js';
import type { Logger } from '../logging/logger.js';

/** How much a `MemoryAlertStore` keeps before it drops its oldest alerts. */
export interface MemoryAlertLimits {
  /** Most alerts kept (default 10,000). */
  maxAlerts: number;
  /** Most bytes of alerts kept, each counted as its JSON in UTF-8 (default 32 MiB; the heap holds a few times that). */
  maxBytes: number;
}

/** The limits a `MemoryAlertStore` has unless given others. */
const DEFAULT_MEMORY_ALERT_LIMITS: Readonly<MemoryAlertLimits> = Object.freeze({
  maxAlerts: 10_000,
  maxBytes: 32 * 1024 * 1024,
});

/** The limits with defaults filled in. @throws {RangeError} for a limit that is not a positive integer. */
export function memoryAlertLimits(given: Partial<MemoryAlertLimits>): MemoryAlertLimits {
  const limits = { ...DEFAULT_MEMORY_ALERT_LIMITS };
  for (const name of ['maxAlerts', 'maxBytes'] as const) {
    const value = given[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`MemoryAlertStore: ${name} must be a positive integer, not ${value}`);
    }
    limits[name] = value;
  }
  return limits;
}

const LOG_INTERVAL_MS = 60_000;

/**
 * Counts the alerts a full store dropped and says so in the log: one warning at the first drop, then at most one a
 * minute with the number dropped since, so a flood of alerts cannot become a flood of log lines as well.
 */
export class AlertDropLog {
  #total = 0;
  #unreported = 0;
  #lastLineAt: number | undefined;
  readonly #logger: Logger | undefined;
  readonly #limits: MemoryAlertLimits;
  readonly #now: () => number;

  constructor(logger: Logger | undefined, limits: MemoryAlertLimits, now: () => number) {
    this.#logger = logger;
    this.#limits = limits;
    this.#now = now;
  }

  /** Alerts dropped since the store was made. */
  get total(): number {
    return this.#total;
  }

  /** Records `count` alerts dropped to make room for one, and logs when a line is due. */
  dropped(count: number): void {
    if (count === 0) return;
    this.#total += count;
    this.#unreported += count;
    const now = this.#now();
    if (this.#lastLineAt !== undefined && now - this.#lastLineAt < LOG_INTERVAL_MS) return;
    this.#lastLineAt = now;
    this.#logger?.warn(
      { dropped: this.#unreported, droppedTotal: this.#total, ...this.#limits },
      `alert store is full (${this.#limits.maxAlerts} alerts or ${this.#limits.maxBytes} bytes): dropped the oldest ${this.#unreported} alert(s) to keep new ones; use a persistent alert store to keep them all`,
    );
    this.#unreported = 0;
  }
}

/** An alert's weight in a store: its JSON in UTF-8 bytes, and the JSON itself. */
export function weighAlert(alert: object): { json: string; bytes: number } {
  const json = JSON.stringify(alert);
  // Counted without Buffer, which a page has not: the memory store also runs in the browser (BrowserAlertStore).
  return { json, bytes: utf8Length(json) };
}
