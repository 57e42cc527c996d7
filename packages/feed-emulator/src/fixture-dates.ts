/**
 * Fields found by their key rather than their shape: a vendor whose dates are numbers (VirusTotal's epoch seconds)
 * or a bare `YYYYMMDD` names them here.
 */
export interface DateKeys {
  /** Keys of numbers holding seconds since the epoch (`last_analysis_date`). */
  epochSeconds?: RegExp;
  /** Keys of strings holding a `YYYYMMDD` date (`engine_update`). */
  compactDate?: RegExp;
}

const DAY_MS = 86_400_000;
/** `2025-11-20T08:14:03+00:00`, `2024-02-10T06:40:12.650000`, `2024-06-01T00:00:00Z`. */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
/** URLhaus's `2024-02-09 13:41:05 UTC`, and the same without the zone. */
const SPACED_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})( UTC)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;

/**
 * `value` (a response body) with every date in it moved by `shiftMs`, each written back in the form it had: ISO 8601
 * date-times keep their zone suffix and fraction digits, URLhaus's `YYYY-MM-DD HH:MM:SS UTC` stays so, a bare date
 * stays a bare date (moved by the shift rounded to whole days), and the fields `keys` names by key are moved too. Strings
 * that only contain a date (`"Webscanners 2024-02"`, a URL with `/2024/02/`) are left alone. The shift is taken in
 * whole seconds, so a date-time's fraction is kept as written; a shift of 0 gives back `value` itself.
 */
export function shiftDates(value: unknown, shiftMs: number, keys: DateKeys = {}): unknown {
  const seconds = Math.trunc(shiftMs / 1000);
  if (seconds === 0) return value;
  return shift(value, undefined, seconds * 1000, keys);
}

function shift(value: unknown, key: string | undefined, shiftMs: number, keys: DateKeys): unknown {
  if (typeof value === 'string') return shiftString(value, key, shiftMs, keys);
  if (typeof value === 'number') {
    return key !== undefined && keys.epochSeconds?.test(key) ? value + shiftMs / 1000 : value;
  }
  if (Array.isArray(value)) return value.map((item) => shift(item, undefined, shiftMs, keys));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, shift(item, name, shiftMs, keys)]));
  }
  return value;
}

function shiftString(text: string, key: string | undefined, shiftMs: number, keys: DateKeys): string {
  let match = ISO_DATE_TIME.exec(text);
  if (match) {
    const [, y, mo, d, h, mi, s, fraction = '', zone = ''] = match;
    return `${dateTimeOf(new Date(utc(y, mo, d, h, mi, s) + shiftMs), 'T')}${fraction}${zone}`;
  }
  match = SPACED_DATE_TIME.exec(text);
  if (match) {
    const [, y, mo, d, h, mi, s, zone = ''] = match;
    return `${dateTimeOf(new Date(utc(y, mo, d, h, mi, s) + shiftMs), ' ')}${zone}`;
  }
  // A bare date moves by whole days: the shift rounded to the nearest day (so moving it back gives it back).
  const dayShiftMs = Math.round(shiftMs / DAY_MS) * DAY_MS;
  match = DATE_ONLY.exec(text);
  if (match) {
    const [, y, mo, d] = match;
    return dateOf(new Date(utc(y, mo, d) + dayShiftMs), '-');
  }
  if (key !== undefined && keys.compactDate?.test(key)) {
    match = COMPACT_DATE.exec(text);
    if (match) {
      const [, y, mo, d] = match;
      return dateOf(new Date(utc(y, mo, d) + dayShiftMs), '');
    }
  }
  return text;
}

/**
 * The fields read as a UTC time. A reading in another offset (`+02:00`) is read the same way: moved by the same
 * amount and written back with its offset, it names the moved instant.
 */
function utc(...fields: Array<string | undefined>): number {
  const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = fields.map((field) => Number(field ?? 0));
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

function dateOf(date: Date, separator: string): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return [String(date.getUTCFullYear()).padStart(4, '0'), pad(date.getUTCMonth() + 1), pad(date.getUTCDate())].join(
    separator,
  );
}

function dateTimeOf(date: Date, separator: string): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${dateOf(date, '-')}${separator}${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}
