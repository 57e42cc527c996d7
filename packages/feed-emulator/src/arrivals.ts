import type { Quota } from './token-bucket.js';

/** What a feed's arrival log says about a client's pace against a quota. */
export interface PaceReport {
  /** Requests in the log. */
  requests: number;
  /** Most requests that arrived within any span of `windowMs` (both ends included). */
  peak: number;
  /** What the quota allows within such a span: `burst + requestsPerSecond × windowMs / 1000`, rounded down. */
  allowed: number;
  /**
   * Requests a token bucket of the quota, checked on arrival, would refuse (the emulator's `violations`, recomputed
   * from the log, so the same check can be made on any log).
   */
  overQuota: number;
  /**
   * The smallest burst a token bucket at the quota's rate needs to admit every request of the log: how much of the
   * quota's burst the client really used, from the feed's view (at most `burst` when nothing was over quota).
   */
  burstSeen: number;
}

/**
 * Checks arrival times (ms, ascending or not) against `quota`: the busiest span of `windowMs` and the requests a
 * token bucket of the quota would have refused.
 *
 * @example
 * ```ts
 * const report = paceOf(emulator.arrivals().feed_urls, { requestsPerSecond: 5, burst: 5 });
 * // report.peak <= report.allowed, report.overQuota === 0 for a client that keeps the quota
 * ```
 */
export function paceOf(arrivals: readonly number[], quota: Quota, windowMs = 1000): PaceReport {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) > windowMs) start += 1;
    peak = Math.max(peak, end - start + 1);
  }
  let tokens = quota.burst;
  let at = sorted[0] ?? 0;
  let overQuota = 0;
  for (const arrival of sorted) {
    tokens = Math.min(quota.burst, tokens + ((arrival - at) * quota.requestsPerSecond) / 1000);
    at = arrival;
    if (tokens >= 1) tokens -= 1;
    else overQuota += 1;
  }
  // A bucket of b admits requests i..j when j - i + 1 <= b + rate × (t_j - t_i); with d_k = k - rate × t_k, the
  // smallest such b over all spans is max over j of (d_j - min over i <= j of d_i + 1).
  let burstSeen = 0;
  let lowest = Number.POSITIVE_INFINITY;
  for (const [k, arrival] of sorted.entries()) {
    const d = k - (quota.requestsPerSecond * arrival) / 1000;
    lowest = Math.min(lowest, d);
    burstSeen = Math.max(burstSeen, d - lowest + 1);
  }
  return {
    requests: sorted.length,
    peak,
    allowed: Math.floor(quota.burst + (quota.requestsPerSecond * windowMs) / 1000),
    overQuota,
    burstSeen: Math.round(burstSeen * 100) / 100,
  };
}
