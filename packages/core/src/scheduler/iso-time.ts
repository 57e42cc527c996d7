// The formatted second of the last call: consecutive timestamps mostly fall in the same second, so only the
// milliseconds are formatted again.
let cachedSecond = Number.NaN;
let cachedPrefix = '';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()`, about twenty times cheaper (50 ns instead of 1 µs on the development machine): every
 * scan stamps its results, so this is on the hot path. Years outside 1000-9999 take the slow path.
 *
 * @example
 * ```ts
 * isoTime(0); // '1970-01-01T00:00:00.000Z'
 * ```
 */
export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    const date = new Date(second * 1000);
    const year = date.getUTCFullYear();
    if (!(year >= 1000 && year <= 9999)) return new Date(ms).toISOString();
    cachedSecond = second;
    cachedPrefix =
      `${year}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}` +
      `T${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}.`;
  }
  const millis = ms - second * 1000;
  return `${cachedPrefix}${millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : millis}Z`;
}
