import type { QuotaWindows } from '../scheduler/default-quotas.js';
import { BURST_RESERVE, RATE_MARGIN, windowMarginMs } from '../scheduler/feed-quota.js';

/** A window of a feed's quota as the cluster keeps it. */
export type SlicedWindow = 'second' | 'minute' | 'hour' | 'day';

/**
 * One window of a feed's quota, kept by every client of a cluster with shared counters: time is cut into slices of
 * `sliceMs` on the server's clock, and each slice admits at most `points` requests. How a window's limit becomes
 * slices is chosen so that **no span of the feed's own window can hold more than its limit**, however the requests of
 * the processes fall within their slices:
 *
 * - a per-second rate `r` with burst `b` (a token bucket at the feed): slices of `p / r` ms admitting `p = ⌊b/2⌋`
 *   each. Any span `T` touches at most `T·r/p + 2` slices, so holds at most `2p + r·T ≤ b + r·T` requests, what the
 *   bucket admits. With a burst of 1, no slice may be sent into early: the request waits for the start of the next
 *   free slice (`reserve`), which spaces requests `1/r` apart.
 * - a minute, hour or day window of `L` requests: `n` slices per window admitting `⌊L / (n + 1)⌋` each (a span of the
 *   window touches at most `n + 1` slices), with `n` (at most 60) chosen to admit the most. A window of 1 request
 *   reserves the next whole window instead.
 *
 * The same margins as a single client's quota apply (2% under the rate, 10% of the burst in reserve, 1% of a window,
 * at most a second, past its edge), for the time between a request's admission and its arrival at the feed.
 */
export interface QuotaSlice {
  window: SlicedWindow;
  /** Length of one slice, in ms. */
  sliceMs: number;
  /** Requests one slice admits. */
  points: number;
  /** Slices the feed's window spans (what `remaining` sums over). */
  span: number;
  /** Whether a request waits for the start of its slice (a burst of 1, or a window of 1 request). */
  reserve: boolean;
  /** The window's limit as configured (the burst for `second`), for status output. */
  limit: number;
  /** The limit in words: `5/s, burst 5`, `4/minute`. */
  describe: string;
}

const SPANS: ReadonlyArray<[Exclude<SlicedWindow, 'second'>, keyof QuotaWindows, number]> = [
  ['minute', 'requestsPerMinute', 60_000],
  ['hour', 'requestsPerHour', 3_600_000],
  ['day', 'requestsPerDay', 86_400_000],
];

/** Most slices one minute, hour or day window is cut into (status reads them all). */
const MAX_SLICES = 60;

/** The slices that keep each of `windows` across a cluster (none for an unlimited feed). */
export function quotaSlices(windows: QuotaWindows): QuotaSlice[] {
  const slices: QuotaSlice[] = [];
  if (windows.requestsPerSecond !== undefined) {
    const rate = windows.requestsPerSecond;
    const burst = windows.burstSize ?? Math.max(1, Math.ceil(rate));
    const usable = Math.max(1, burst - Math.floor(burst * BURST_RESERVE));
    const perMs = (rate * RATE_MARGIN) / 1000;
    const reserve = usable < 2;
    const points = reserve ? 1 : Math.floor(usable / 2);
    const sliceMs = Math.max(1, Math.ceil(points / perMs));
    slices.push({
      window: 'second',
      sliceMs,
      points,
      span: Math.max(1, Math.ceil(1000 / sliceMs)),
      reserve,
      limit: burst,
      describe: `${rate}/s, burst ${burst}`,
    });
  }
  for (const [window, key, spanMs] of SPANS) {
    const limit = windows[key];
    if (limit === undefined) continue;
    const covered = spanMs + windowMarginMs(spanMs);
    if (limit < 2) {
      slices.push({
        window,
        sliceMs: covered,
        points: 1,
        span: 1,
        reserve: true,
        limit,
        describe: `${limit}/${window}`,
      });
      continue;
    }
    let best = { n: 1, points: Math.floor(limit / 2) };
    for (let n = 2; n <= Math.min(MAX_SLICES, limit - 1); n++) {
      const points = Math.floor(limit / (n + 1));
      if (n * points > best.n * best.points) best = { n, points };
    }
    slices.push({
      window,
      sliceMs: Math.ceil(covered / best.n),
      points: best.points,
      span: best.n,
      reserve: false,
      limit,
      describe: `${limit}/${window}`,
    });
  }
  return slices;
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
