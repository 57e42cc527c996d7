// STIX 2.1 section 3.2 and TAXII 2.1 section 2.1: `YYYY-MM-DDTHH:mm:ss[.s+]Z`, in UTC, any number of sub-second digits.
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,32}))?Z$/;

/**
 * A STIX or TAXII timestamp as microseconds since the epoch (digits past the sixth are cut: microseconds are what
 * TAXII servers order by), or undefined when the text is not one: another format, a time zone other than `Z`, a date
 * that does not exist (`2021-02-30`). A leap second (`23:59:60`) is read as the first instant of the next minute.
 *
 * @example
 * ```ts
 * parseStixTimestamp('2016-11-01T03:04:05.123456Z'); // 1477969445123456
 * parseStixTimestamp('2016-11-01T03:04:05+01:00'); // undefined
 * ```
 */
export function parseStixTimestamp(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, takes years 0..99 as they are.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime() * 1000 + Number((match[7] ?? '').slice(0, 6).padEnd(6, '0'));
}

/**
 * Microseconds since the epoch as a timestamp with six sub-second digits, the precision TAXII servers give
 * `date_added` (`2016-11-01T03:04:05.123456Z`).
 */
export function stixTimestamp(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 19)}.${String(micros - seconds * 1_000_000).padStart(6, '0')}Z`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
