import { type DurationBounds, durationProblem, durationSchema } from '@threatlib/core/integration';

/**
 * Longest `ttl`: one year, in seconds. Threat records, campaigns and sightings go stale long before; and a longer one
 * is almost always milliseconds given for seconds (`86400000`, a day in ms, would keep a record for 1000 days).
 */
const MAX_TTL_SECONDS = 365 * 86_400;

const TTL: DurationBounds = { name: 'ttl', unit: 'seconds', min: 1, max: MAX_TTL_SECONDS };

/** A record's `ttl`: seconds, 1 to {@link MAX_TTL_SECONDS}; milliseconds are refused with the seconds they stand for. */
export const ttlSchema = durationSchema(TTL);

/**
 * Why `value` is not a `ttl` (seconds, 1 to one year), or undefined when it is one.
 *
 * @example
 * ```ts
 * ttlProblem(86_400_000); // 'ttl is in seconds, at most 31536000 (365 days); got 86400000 (did you mean 86400?)'
 * ```
 */
export function ttlProblem(value: unknown): string | undefined {
  return durationProblem(value, TTL);
}
