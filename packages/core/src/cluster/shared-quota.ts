import { importRateLimiter } from '#cluster-modules';
import type { QuotaWindows } from '../scheduler/default-quotas.js';
import { FeedQuota, RATE_MARGIN, usableBurst, type WindowName, type WindowStatus } from '../scheduler/feed-quota.js';
import type { QuotaGate, QuotaGrant } from '../scheduler/quota-gate.js';
import { TokenBucket } from '../scheduler/token-bucket.js';
import type { ClusterConnection } from './cluster-connection.js';
import { type QuotaSlice, quotaSlices, shareOf } from './quota-slices.js';

/** What a rate-limiter-flexible limiter is to this module. */
interface SliceLimiter {
  /** Resolves (room) or rejects (no room) with the script's answer; rejects with an Error when Redis failed. */
  consume(key: string, points?: number): Promise<CountedAt>;
  reward(key: string, points?: number): Promise<unknown>;
}

/**
 * What rate-limiter-flexible reports of one `consume`: the script's two values. The second, which the library calls
 * `msBeforeNext` (a key's time to live in its own script), is Redis's clock in ms when the request was counted.
 */
interface CountedAt {
  consumedPoints: number;
  msBeforeNext: number;
}

/** The key `consume` is given: the script counts the request in the slice that is current on Redis's clock. */
const CURRENT_SLICE = 'now';

/** The part of the `rate-limiter-flexible` module used here. */
export interface RateLimiterModule {
  RateLimiterRedis: new (options: {
    storeClient: unknown;
    useRedisPackage: boolean;
    rejectIfRedisNotReady: boolean;
    points: number;
    duration: number;
    keyPrefix: string;
    customIncrTtlLuaScript: string;
  }) => SliceLimiter;
}

/**
 * The counting step of a sliding window, given to rate-limiter-flexible as its `customIncrTtlLuaScript` (its
 * documented way to change how a key is counted). A request (`consume`, positive points) is counted in the slice that
 * is current on **Redis's own clock** (`TIME`) when the script runs, never in one a client computed from its estimate
 * of that clock: estimates taken from a round trip err by half of it (hundreds of ms on a loaded machine), and a
 * client whose estimate runs ahead would count in slices the others' windows do not cover yet, one that stalled
 * between reading its clock and sending the command in a slice that leaves the window early. The script returns the
 * sum of that slice and the `slices` before it (which the library compares with the window's limit) and Redis's time
 * in ms, from which the client knows the slice to give the point back to. A point given back (`reward`, negative
 * points) goes to the slice its key names. The library's own step (create the key with its expiry, add the points)
 * is kept. (A script reading keys it was not given needs one Redis server, not a sharded Redis Cluster.)
 */
function slidingScript(slice: QuotaSlice): string {
  return `local points = tonumber(ARGV[1])
local prefix, named = string.match(KEYS[1], '^(.*):([^:]*)$')
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local index = math.floor(nowMs / ${slice.sliceMs})
if points < 0 then index = tonumber(named) end
local key = prefix .. ':' .. string.format('%d', index)
redis.call('set', key, 0, 'EX', ARGV[2], 'NX')
redis.call('incrby', key, points)
local sum = 0
for i = 0, ${slice.slices} do
  local v = redis.call('get', prefix .. ':' .. string.format('%d', index - i))
  if v then sum = sum + tonumber(v) end
end
return {sum, nowMs}`;
}

/** Loads rate-limiter-flexible once, on first use (it is CommonJS; its names may sit on `default`). */
export async function loadRateLimiter(): Promise<RateLimiterModule> {
  const loaded = (await importRateLimiter()) as RateLimiterModule & {
    default?: RateLimiterModule;
  };
  return loaded.RateLimiterRedis ? loaded : (loaded.default as RateLimiterModule);
}

interface Sliced {
  slice: QuotaSlice;
  limiter: SliceLimiter;
  /** The Redis key the limiter writes for slice `index`. */
  key(index: number): string;
}

/** How often at most the figures behind `status()` are read again after a grant, in ms. */
const REFRESH_MS = 1000;

/**
 * One feed's quota shared by every client of a cluster (see {@link QuotaSlice} for how each window is kept). Each
 * request consumes one point of the current slice of every window, through rate-limiter-flexible's `RateLimiterRedis`
 * on the cluster's node-redis connection; the request is sent only when every window had room. When one refuses, the
 * points the others (and the refusing one) took are given back with `reward`, so a refused attempt costs no window
 * anything. A pause a feed asked for (Retry-After) is kept in Redis too, so it holds every client.
 *
 * While Redis cannot be reached, the quota is kept locally at this process's share: every window divided by the number
 * of peers (`cluster.expectedPeers`, or the peers last seen in Redis when more), at least one request each.
 */
export class SharedQuota implements QuotaGate {
  readonly describe: string;
  readonly #connection: ClusterConnection;
  readonly #feed: string;
  readonly #windows: QuotaWindows;
  readonly #slices: QuotaSlice[];
  readonly #expectedPeers: number | undefined;
  readonly #limiters: Promise<RateLimiterModule>;
  #sliced: Sliced[] | undefined;
  /** The local share, made when Redis is found unreachable (with the peer count then). */
  #local: { quota: FeedQuota; peers: number } | undefined;
  #pausedUntil = 0;
  /**
   * This process's own pace within the feed's per-second quota, starting with one request: a process just started
   * opens its connections while it sends its first requests, which arrive late and bunched; ramping up keeps its
   * first burst from landing on top of the cluster's.
   */
  readonly #pacer: TokenBucket | undefined;
  #snapshot: WindowStatus[];
  #refreshedAt = Number.NEGATIVE_INFINITY;
  #refreshing: Promise<void> | undefined;
  readonly #onRefreshed: (() => void) | undefined;

  constructor(options: {
    connection: ClusterConnection;
    feed: string;
    windows: QuotaWindows;
    expectedPeers?: number | undefined;
    limiters: Promise<RateLimiterModule>;
    /** Called each time the cluster's figures have been read (so `quotaLow` sees the other clients' requests). */
    onRefreshed?: (() => void) | undefined;
  }) {
    this.#onRefreshed = options.onRefreshed;
    this.#connection = options.connection;
    this.#feed = options.feed;
    this.#windows = options.windows;
    this.#slices = quotaSlices(options.windows);
    this.#expectedPeers = options.expectedPeers;
    this.#limiters = options.limiters;
    this.describe = this.#slices.length === 0 ? 'unlimited' : this.#slices.map((s) => s.describe).join(', ');
    const { requestsPerSecond: rate, burstSize } = options.windows;
    this.#pacer =
      rate === undefined
        ? undefined
        : new TokenBucket(
            rate * RATE_MARGIN,
            usableBurst(rate, burstSize ?? Math.max(1, Math.ceil(rate))),
            Date.now(),
            1,
          );
    this.#snapshot = this.#slices.map((slice) => ({
      window: slice.window,
      limit: slice.limit,
      remaining: slice.limit,
    }));
  }

  /** Whether the figures come from Redis (false while the local share is in use). */
  get shared(): boolean {
    return this.#connection.up;
  }

  /** The peers this process's share divides by: `cluster.expectedPeers`, or more when more were seen in Redis. */
  get peers(): number {
    return Math.max(this.#expectedPeers ?? 1, this.#connection.peers);
  }

  async acquire(now: number): Promise<QuotaGrant> {
    if (!this.#connection.up) return this.#acquireLocally(now);
    const sliced = await this.#limitersReady();
    if (!sliced) return this.#acquireLocally(now);
    const paced = this.#pacer?.nextAvailable(now) ?? now;
    if (paced > now) return { granted: false, at: paced, window: 'second', limit: 'this process ramping up' };
    this.#pacer?.take(now);
    // Sharing again: the next outage's share starts drained, not with what this one left.
    this.#local = undefined;
    const offset = this.#connection.now() - now;
    const [pause, ...outcomes] = await Promise.allSettled([
      this.#connection.run('ZSCORE pause', (redis) => redis.zScore(this.#key('pauses'), this.#feed)),
      ...sliced.map(({ limiter }) => limiter.consume(CURRENT_SLICE)),
    ]);
    // Where each window counted the request (Redis's clock then, and its slice), refused or not; none where Redis failed.
    const taken = sliced.flatMap(({ slice, limiter }, i) => {
      const outcome = outcomes[i];
      const counted = outcome?.status === 'fulfilled' ? outcome.value : (outcome?.reason as CountedAt | Error);
      if (counted === undefined || counted instanceof Error) return [];
      const index = Math.floor(counted.msBeforeNext / slice.sliceMs);
      return [
        {
          slice,
          limiter,
          key: String(index),
          index,
          countedAt: counted.msBeforeNext,
          ok: outcome?.status === 'fulfilled',
        },
      ];
    });
    const failed = outcomes.find((outcome) => outcome.status === 'rejected' && outcome.reason instanceof Error);
    if (failed || pause?.status === 'rejected') {
      this.#pacer?.giveBack();
      if (failed) this.#connection.failed(`rate limiter of ${this.#feed}`, (failed as PromiseRejectedResult).reason);
      // Redis failed mid-way: what was taken is given back (if Redis lets us), and the local share decides.
      this.#giveBack(taken);
      return this.#acquireLocally(now);
    }
    const pausedUntil = pause?.status === 'fulfilled' && typeof pause.value === 'number' ? pause.value - offset : 0;
    if (pausedUntil > now) this.#pausedUntil = Math.max(this.#pausedUntil, pausedUntil);
    const refused = taken.filter(({ ok }) => !ok);
    if (refused.length > 0 || pausedUntil > now) {
      this.#pacer?.giveBack();
      // Every point taken, the refusing windows' included, goes back: a refused attempt costs no window anything.
      this.#giveBack(taken);
      if (pausedUntil > now)
        return { granted: false, at: pausedUntil, window: 'pause', limit: 'the feed asked us to wait' };
      // The refusing slice ends (index + 1) × sliceMs on Redis's clock: that long after the count, on ours.
      const answeredAt = this.#connection.now() - this.#connection.offsetMs;
      let at = now;
      let window: WindowName = 'second';
      let limit = '';
      for (const { slice, index, countedAt } of refused) {
        const reopens = answeredAt + (index + 1) * slice.sliceMs - countedAt;
        if (reopens >= at) {
          at = reopens;
          window = slice.window;
          limit = slice.describe;
        }
      }
      this.#refreshSoon();
      return { granted: false, at, window, limit };
    }
    this.#refreshSoon();
    return {
      granted: true,
      notBefore: now,
      cancel: () => {
        this.#pacer?.giveBack();
        this.#giveBack(taken);
      },
    };
  }

  pause(until: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
    this.#local?.quota.pauseUntil(until);
    if (!this.#connection.up) return;
    const serverUntil = until + this.#connection.offsetMs;
    // ZADD GT keeps the later of two pauses, whichever client asked first.
    void this.#connection
      .run('ZADD pause', (redis) =>
        redis.zAdd(this.#key('pauses'), { score: serverUntil, value: this.#feed }, { comparison: 'GT' }),
      )
      .catch(() => undefined);
  }

  pausedUntil(now: number): number | undefined {
    return this.#pausedUntil > now ? this.#pausedUntil : undefined;
  }

  nextAvailable(now: number): { at: number; window?: WindowName; limit?: string } {
    if (this.#pausedUntil > now) return { at: this.#pausedUntil, window: 'pause', limit: 'the feed asked us to wait' };
    if (!this.#connection.up && this.#local) return this.#local.quota.nextAvailable(now);
    return { at: now };
  }

  status(now: number): WindowStatus[] {
    if (!this.#connection.up && this.#local) return this.#local.quota.status(now);
    return this.#snapshot.map((entry) => ({ ...entry }));
  }

  /** Reads every window's slices in the span ending now (one MGET): what is left of each across the cluster. */
  async refresh(): Promise<void> {
    if (!this.#connection.up || this.#slices.length === 0) return;
    const sliced = await this.#limitersReady();
    if (!sliced) return;
    const serverNow = this.#connection.now();
    const keys: string[] = [];
    for (const { slice, key } of sliced) {
      const current = Math.floor(serverNow / slice.sliceMs);
      for (let i = 0; i <= slice.slices; i++) keys.push(key(current - i));
    }
    let values: Array<string | null>;
    try {
      values = await this.#connection.run('MGET quota', (redis) => redis.mGet(keys));
    } catch {
      return;
    }
    const offset = this.#connection.offsetMs;
    this.#refreshedAt = serverNow - offset;
    let at = 0;
    this.#snapshot = sliced.map(({ slice }) => {
      const counts = values.slice(at, at + slice.slices + 1).map((v) => Math.max(0, Number(v ?? 0) || 0));
      at += slice.slices + 1;
      const { limit } = slice;
      const remaining = Math.max(0, limit - counts.reduce((sum, n) => sum + n, 0));
      const current = Math.floor(serverNow / slice.sliceMs);
      // The oldest slice that holds requests leaves the window first; with none, the window has all its room.
      const oldest = counts
        .map((n, i) => (n > 0 ? i : -1))
        .filter((i) => i >= 0)
        .pop();
      const resets = oldest === undefined ? undefined : (current - oldest + slice.slices + 1) * slice.sliceMs;
      return {
        window: slice.window,
        limit,
        remaining,
        ...(remaining < limit && resets !== undefined ? { resetsAt: new Date(resets - offset).toISOString() } : {}),
      };
    });
    this.#onRefreshed?.();
  }

  #refreshSoon(): void {
    if (this.#refreshing || this.#connection.now() - this.#connection.offsetMs - this.#refreshedAt < REFRESH_MS) return;
    this.#refreshing = this.refresh().finally(() => {
      this.#refreshing = undefined;
    });
  }

  #acquireLocally(now: number): QuotaGrant {
    const peers = this.peers;
    if (!this.#local || this.#local.peers !== peers) {
      // Drained: the cluster may just have sent at the full rate, so the share starts with no burst to spend.
      const quota = new FeedQuota(shareOf(this.#windows, peers), now, { drained: true });
      if (this.#pausedUntil > now) quota.pauseUntil(this.#pausedUntil);
      this.#local = { quota, peers };
    }
    const { quota } = this.#local;
    const next = quota.nextAvailable(now);
    if (next.at > now) {
      return {
        granted: false,
        at: next.at,
        window: next.window ?? 'second',
        limit: `${next.limit ?? 'its quota'}; this process's share while Redis is unreachable (1/${peers})`,
      };
    }
    quota.take(now);
    return granted(now);
  }

  #giveBack(taken: ReadonlyArray<{ limiter: SliceLimiter; key: string }>): void {
    for (const { limiter, key } of taken) void limiter.reward(key).catch(() => undefined);
  }

  async #limitersReady(): Promise<Sliced[] | undefined> {
    if (this.#sliced) return this.#sliced;
    const client = this.#connection.client;
    if (!client) return undefined;
    let module: RateLimiterModule;
    try {
      module = await this.#limiters;
    } catch {
      return undefined;
    }
    this.#sliced = this.#slices.map((slice) => {
      // The window's shape is in the key: clients configured differently never mix their counts.
      const keyPrefix = this.#key(`q:${this.#feed}:${slice.window}:${slice.limit}x${slice.sliceMs}`);
      const limiter = new module.RateLimiterRedis({
        storeClient: client,
        useRedisPackage: true,
        // Fail at once (and use the local share) rather than wait while the connection is down.
        rejectIfRedisNotReady: true,
        points: slice.limit,
        // Whole seconds (the library expires keys in seconds): a slice is kept while the window still covers it.
        duration: Math.max(1, Math.ceil((slice.sliceMs * (slice.slices + 2)) / 1000)),
        keyPrefix,
        customIncrTtlLuaScript: slidingScript(slice),
      });
      return { slice, limiter, key: (index: number) => `${keyPrefix}:${index}` };
    });
    return this.#sliced;
  }

  #key(name: string): string {
    return this.#connection.keyPrefix + name;
  }
}

function granted(now: number): QuotaGrant {
  return { granted: true, notBefore: now, cancel: () => undefined };
}
