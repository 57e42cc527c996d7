/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/** Earliest and latest instants a document may carry: daily index names have a four-digit year. */
export const EARLIEST_TIMESTAMP = Date.UTC(1970, 0, 1);
export const LATEST_TIMESTAMP = Date.UTC(10_000, 0, 1) - 1;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The daily index of `base` that holds documents of the UTC day of `time`: `<base>-YYYY.MM.DD`. */
export function dailyIndexName(base: string, time: number): string {
  const date = new Date(time);
  return `${base}-${pad(date.getUTCFullYear(), 4)}.${pad(date.getUTCMonth() + 1)}.${pad(date.getUTCDate())}`;
}

/**
 * The start (UTC midnight, epoch ms) of the day a daily index of `base` holds, or undefined when `index` is not
 * exactly `<base>-YYYY.MM.DD` with a real date: only such names are ever deleted by the retention sweep.
 */
export function dayOfDailyIndex(base: string, index: string): number | undefined {
  if (!index.startsWith(`${base}-`)) return undefined;
  const match = /^(\d{4})\.(\d{2})\.(\d{2})$/.exec(index.slice(base.length + 1));
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = Date.UTC(year, month - 1, day);
  // Date.UTC rolls 2026.02.30 over to March: a name whose date does not come back the same is not ours.
  return dailyIndexName(base, start) === index ? start : undefined;
}

/**
 * Whether the daily index of the day starting at `dayStart` is past retention at `now`: every instant of that day
 * is more than `retentionDays` days old.
 */
export function isPastRetention(dayStart: number, now: number, retentionDays: number): boolean {
  return dayStart + DAY_MS <= now - retentionDays * DAY_MS;
}

/** The daily index names of one base, the last one remembered: documents of a bulk mostly share a day. */
export class DailyIndexNames {
  readonly #base: string;
  #day = Number.NaN;
  #name = '';

  constructor(base: string) {
    this.#base = base;
  }

  /** `dailyIndexName(base, time)`. */
  of(time: number): string {
    const day = Math.floor(time / DAY_MS);
    if (day !== this.#day) {
      this.#day = day;
      this.#name = dailyIndexName(this.#base, time);
    }
    return this.#name;
  }
}
