import type { QuotaWindows } from '../scheduler/default-quotas.js';
import { RATE_MARGIN, usableBurst, windowMarginMs } from '../scheduler/feed-quota.js';

/** A window of a feed's quota as the cluster keeps it. */
type SlicedWindow = 'second' | 'minute' | 'hour' | 'day';

/**
 * One window of a feed's quota, kept by every client of a cluster as a sliding window over shared counters: time is
 * cut into slices of `sliceMs` on the server's clock, each slice counts the requests let go in it, and a request is let
 * go only while the `slices + 1` most recent slices (the current one included) hold fewer than `limit`. A span of the
 * window (`slices × sliceMs` ms) touches at most `slices + 1` slices, so **no span of the window ever holds more than
 * `limit` requests**, however the processes' requests fall; and `limit` requests may go at once (a full burst).
 *
 * - a per-second rate `r` with burst `b` (a token bucket at the feed) is kept as `b` requests per `b / r` seconds: a
 *   span `T` then holds at most `b × ⌈T·r/b⌉ ≤ b + r·T` requests, what the bucket admits;
 * - a minute, hour or day window of `L` requests is kept as `L` per window.
 *
 * The same margins as a single client's quota apply (2% under the rate; 10% of the burst or 150 ms of the rate in
 * reserve, whichever is more; 1% of a window, at most a second, past its edge), for the time between a request's
 * admission and its arrival at the feed.
 */
export interface QuotaSlice {
  window: SlicedWindow;
  /** Length of one slice, in ms. */
  sliceMs: number;
  /** Slices the window spans. */
  slices: number;
  /** Requests the window lets go. */
  limit: number;
  /** The limit in words: `5/s, burst 5`, `4/minute`. */
  describe: string;
}

const SPANS: ReadonlyArray<[Exclude<SlicedWindow, 'second'>, keyof QuotaWindows, number]> = [
  ['minute', 'requestsPerMinute', 60_000],
  ['hour', 'requestsPerHour', 3_600_000],
  ['day', 'requestsPerDay', 86_400_000],
];

/** Slices per window: a request that left the window is counted at most one slice (5%) longer. */
const SLICES = 20;

/** The sliding windows that keep each of `windows` across a cluster (none for an unlimited feed). */
export function quotaSlices(windows: QuotaWindows): QuotaSlice[] {
  const out: QuotaSlice[] = [];
  if (windows.requestsPerSecond !== undefined) {
    const rate = windows.requestsPerSecond;
    const burst = windows.burstSize ?? Math.max(1, Math.ceil(rate));
    const usable = usableBurst(rate, burst);
    const windowMs = Math.ceil((usable * 1000) / (rate * RATE_MARGIN));
    out.push(slice('second', windowMs, usable, `${rate}/s, burst ${burst}`));
  }
  for (const [window, key, spanMs] of SPANS) {
    const limit = windows[key];
    if (limit === undefined) continue;
    out.push(slice(window, spanMs + windowMarginMs(spanMs), limit, `${limit}/${window}`));
  }
  return out;
}

function slice(window: SlicedWindow, windowMs: number, limit: number, describe: string): QuotaSlice {
  const slices = Math.min(SLICES, windowMs);
  return { window, sliceMs: Math.ceil(windowMs / slices), slices, limit, describe };
}

/** `windows` with every limit divided by `peers` (at least 1 each): one process's share while Redis is away. */
export function shareOf(windows: QuotaWindows, peers: number): QuotaWindows {
  if (peers <= 1) return windows;
  const part = (n: number | undefined, whole: boolean) =>
    n === undefined ? undefined : whole ? Math.max(1, Math.floor(n / peers)) : n / peers;
  return {
    requestsPerSecond: part(windows.requestsPerSecond, false),
    burstSize: part(windows.burstSize ?? defaultBurst(windows.requestsPerSecond), true),
    requestsPerMinute: part(windows.requestsPerMinute, true),
    requestsPerHour: part(windows.requestsPerHour, true),
    requestsPerDay: part(windows.requestsPerDay, true),
  };
}

/** The burst of a per-second rate given without one (as a single client's quota takes it). */
function defaultBurst(rate: number | undefined): number | undefined {
  return rate === undefined ? undefined : Math.max(1, Math.ceil(rate));
}
