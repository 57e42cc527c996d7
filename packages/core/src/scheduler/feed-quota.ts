import type { QuotaWindows } from './default-quotas.js';
import { SlidingWindow } from './sliding-window.js';
import { TokenBucket } from './token-bucket.js';

/** A quota window's name, as errors and `feedStatus()` report it. */
export type WindowName = 'second' | 'minute' | 'hour' | 'day' | 'pause';

/** How much of one window is left. */
export interface WindowStatus {
  window: Exclude<WindowName, 'pause'>;
  limit: number;
  remaining: number;
  /** ISO 8601: when the window has room again (absent while it has room). */
  resetsAt?: string;
}

/*
 * Safety margins. We count a request when we let it go; the feed counts it when it arrives, and between the two lie
 * the event loop, connection set-up, the network and the feed's own event loop. Requests let go at a steady pace can
 * arrive bunched: a request held up by J ms arrives together with the J × rate requests let go after it. Measured at
 * the feed emulator's arrival log (`pnpm bench:scan` on a loaded two-core machine), that holding-up reaches 70 ms in
 * a steady run, and more while connections open. So the per-second bucket runs 2% under the configured rate and keeps
 * in reserve 10% of its burst or 150 ms of its rate, whichever is more (one request at least is left), and a minute/hour/day window waits 1% of its
 * span (at most a second) past its edge. (A process just started holds its first requests up longest, while its
 * connections open: a cluster's client ramps up, see `SharedQuota`.)
 */
export const RATE_MARGIN = 0.98;
const BURST_RESERVE = 0.1;
/** How long a request may be held up between being let go and arriving, which the burst reserve absorbs, in ms. */
const ARRIVAL_JITTER_MS = 150;
const WINDOW_MARGIN = 0.01;
const MAX_WINDOW_MARGIN_MS = 1000;

/** The burst a client lets go at once for a feed whose quota allows `burst` at `rate` per second. */
export function usableBurst(rate: number, burst: number): number {
  const reserve = Math.max(Math.floor(burst * BURST_RESERVE), Math.ceil((rate * ARRIVAL_JITTER_MS) / 1000));
  return Math.max(1, burst - reserve);
}

/** How long past a minute, hour or day window's edge a request waits (1% of the window, at most a second). */
export function windowMarginMs(windowMs: number): number {
  return Math.min(MAX_WINDOW_MARGIN_MS, Math.round(windowMs * WINDOW_MARGIN));
}

const WINDOWS: ReadonlyArray<[Exclude<WindowName, 'second' | 'pause'>, keyof QuotaWindows, number]> = [
  ['minute', 'requestsPerMinute', 60_000],
  ['hour', 'requestsPerHour', 3_600_000],
  ['day', 'requestsPerDay', 86_400_000],
];

/**
 * Every limit one feed is under at once: a per-second token bucket with burst, sliding minute/hour/day windows, and
 * a pause the feed itself asked for (Retry-After, X-RateLimit-Remaining: 0). A request may go when all allow it.
 */
export class FeedQuota {
  readonly #bucket: TokenBucket | undefined;
  /** The configured per-second rate and burst (the bucket runs slightly under them). */
  readonly #rate: { perSecond: number; burst: number } | undefined;
  readonly #windows: Array<{ name: Exclude<WindowName, 'second' | 'pause'>; window: SlidingWindow }> = [];
  #pausedUntil = 0;
  readonly describe: string;

  /**
   * @param options.drained start with an empty bucket instead of a full one: the feed has just been sent to at the
   *   full rate by others (a cluster's local share taking over), so no burst is left for this client at once.
   */
  constructor(windows: QuotaWindows, now: number, options: { drained?: boolean } = {}) {
    const burst = windows.burstSize ?? Math.max(1, Math.ceil(windows.requestsPerSecond ?? 1));
    if (windows.requestsPerSecond !== undefined) {
      const capacity = usableBurst(windows.requestsPerSecond, burst);
      this.#bucket = new TokenBucket(
        windows.requestsPerSecond * RATE_MARGIN,
        capacity,
        now,
        options.drained ? 0 : capacity,
      );
      this.#rate = { perSecond: windows.requestsPerSecond, burst };
    }
    for (const [name, key, ms] of WINDOWS) {
      const limit = windows[key];
      if (limit !== undefined) {
        this.#windows.push({ name, window: new SlidingWindow(limit, ms, windowMarginMs(ms)) });
      }
    }
    const parts = [
      ...(this.#rate ? [`${this.#rate.perSecond}/s (burst ${this.#rate.burst})`] : []),
      ...this.#windows.map((w) => `${w.window.limit}/${w.name}`),
    ];
    this.describe = parts.length === 0 ? 'unlimited' : parts.join(', ');
  }

  /** When the next request may go, and the window that holds it back (undefined when it may go now). */
  nextAvailable(now: number): { at: number; window?: WindowName; limit?: string } {
    let at = now;
    let window: WindowName | undefined;
    let limit: string | undefined;
    if (this.#pausedUntil > at) {
      at = this.#pausedUntil;
      window = 'pause';
      limit = 'the feed asked us to wait';
    }
    if (this.#bucket) {
      const t = this.#bucket.nextAvailable(now);
      if (t > at) {
        at = t;
        window = 'second';
        limit = `${this.#rate?.perSecond}/s, burst ${this.#rate?.burst}`;
      }
    }
    for (const { name, window: w } of this.#windows) {
      const t = w.nextAvailable(now);
      if (t > at) {
        at = t;
        window = name;
        limit = `${w.limit}/${name}`;
      }
    }
    return window === undefined ? { at } : { at, window, ...(limit ? { limit } : {}) };
  }

  /** Records a request sent at `now`. */
  take(now: number): void {
    this.#bucket?.take(now);
    for (const { window } of this.#windows) window.take(now);
  }

  /** Holds every request until `until` (a feed's Retry-After); a shorter pause never shortens a longer one. */
  pauseUntil(until: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
  }

  /** When the pause ends, if the feed is paused at `now`. */
  pausedUntil(now: number): number | undefined {
    return this.#pausedUntil > now ? this.#pausedUntil : undefined;
  }

  /** What is left of each window at `now`. */
  status(now: number): WindowStatus[] {
    const out: WindowStatus[] = [];
    if (this.#bucket) {
      const remaining = this.#bucket.remaining(now);
      out.push({
        window: 'second',
        limit: this.#bucket.capacity,
        remaining,
        ...(remaining < this.#bucket.capacity ? { resetsAt: new Date(this.#bucket.fullAt(now)).toISOString() } : {}),
      });
    }
    for (const { name, window } of this.#windows) {
      const remaining = window.remaining(now);
      const resets = window.resetsAt(now);
      out.push({
        window: name,
        limit: window.limit,
        remaining,
        ...(remaining < window.limit && resets !== undefined ? { resetsAt: new Date(resets).toISOString() } : {}),
      });
    }
    return out;
  }
}
