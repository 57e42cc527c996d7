import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FaultInjector, type FaultOptions } from './fault-injector.js';
import { shiftDates } from './fixture-dates.js';
import { type Quota, TokenBucket } from './token-bucket.js';
import type { Behaviour, EmulatedFeed, EmulatorRequest, EmulatorResponse, VendorApi } from './vendor-api.js';
import { abuseipdb } from './vendors/abuseipdb.js';
import { crowdsec } from './vendors/crowdsec.js';
import { otx } from './vendors/otx.js';
import { urlhaus } from './vendors/urlhaus.js';
import { virustotal } from './vendors/virustotal.js';

/** The API key every emulated vendor refuses with its own 401 answer. */
export const INVALID_KEY = 'invalid-key';

/** The vendors the emulator serves, by feed id. */
export const VENDORS: Readonly<Record<EmulatedFeed, VendorApi>> = {
  feed_urls: urlhaus,
  feed_otx: otx,
  feed_abuse: abuseipdb,
  feed_cti: crowdsec,
  feed_scan: virustotal,
};

/**
 * When each vendor's answers were recorded, epoch ms. An emulator whose `now` is a feed's time answers that feed
 * exactly as recorded (the dates tests assert); at any other time every date is moved by the difference.
 *
 * @example
 * ```ts
 * const emulator = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_abuse });
 * // AbuseIPDB's lastReportedAt is 2025-11-20T08:14:03+00:00, as recorded
 * ```
 */
export const FIXTURE_REFERENCE_TIMES: Readonly<Record<EmulatedFeed, number>> = Object.freeze(
  Object.fromEntries(Object.values(VENDORS).map((vendor) => [vendor.feed, vendor.recordedAt])) as Record<
    EmulatedFeed,
    number
  >,
);

const DAY_MS = 86_400_000;

/** How the emulator treats one indicator (optionally only for some feeds). */
export interface Script {
  behaviour: Behaviour;
  /** Delay before answering, in ms. */
  latencyMs?: number;
  /** Only these feeds behave so; the others use the default. */
  feeds?: EmulatedFeed[];
  /**
   * How many days older than fresh the answers' evidence is (default 0): their dates are moved this much further
   * back, as a feed answering about an indicator it last saw long ago would date them.
   */
  ageDays?: number;
}

/** A request the emulator received, as recorded for assertions. */
export interface RecordedRequest extends EmulatorRequest {
  feed: EmulatedFeed;
  /** The indicator it asked about, when the request was valid enough to name one. */
  indicator?: string;
  /** The full path as sent, with the vendor prefix and query string. */
  url: string;
}

/** Options of {@link startFeedEmulator}. */
export interface FeedEmulatorOptions {
  /** Port to listen on (default: any free port). */
  port?: number;
  /** What an unscripted indicator gets (default `not_found`). */
  defaultBehaviour?: Behaviour | ((feed: EmulatedFeed, indicator: string) => Behaviour);
  /** Delay before every answer, in ms (default 0). */
  latencyMs?: number;
  /** How many requests to keep in `requests` (default 10,000; counters are never capped). */
  keepRequests?: number;
  /**
   * A quota per feed: a token bucket of `burst` requests refilled continuously at `requestsPerSecond`, checked on
   * each request's arrival. A request over quota gets the vendor's own 429 with `Retry-After` set to the real wait
   * (whole seconds, rounded up) and counts as a violation; every answer of a feed with a quota carries
   * `X-RateLimit-Limit` (the burst), `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds when the bucket
   * is full again). Only requests that name an indicator with a valid key are counted, as a quota belongs to a key.
   *
   * @example
   * ```ts
   * await startFeedEmulator({ quotas: { feed_scan: { requestsPerSecond: 4, burst: 4 } } });
   * ```
   */
  quotas?: Partial<Record<EmulatedFeed, Quota>>;
  /**
   * Faults injected after the quota check, drawn from a seeded PRNG: that fraction of the admitted requests gets the
   * vendor's 429 without `Retry-After` (a spurious limit) or its server error, whatever the indicator's behaviour.
   */
  faults?: FaultOptions;
  /**
   * Serve each feed on a port of its own as well as on `port` (default false). The real feeds are five origins and
   * HTTP clients pool connections per origin, so a benchmark of concurrency needs this to be fair.
   */
  portPerFeed?: boolean;
  /**
   * The emulator's time, epoch ms (default the real time): a function, or a fixed time (a number or a `Date`). Each
   * vendor's answers were recorded at a moment of their own (see {@link FIXTURE_REFERENCE_TIMES}) and every date in
   * them is moved by the time between that moment and this one, so the evidence is as fresh as it was when recorded,
   * whatever the calendar says. Give a feed's reference time to get its answers exactly as recorded.
   */
  now?: (() => number) | number | Date;
  /** Monotonic clock in ms for the quotas (default `performance.now`); tests inject their own. */
  quotaClock?: () => number;
}

/** What the emulator counted for one feed (or all of them) since it started or `resetCounters()`. */
export interface FeedStats {
  /** Requests that reached the feed, whatever their answer. */
  requests: number;
  /** Requests refused because they were over the feed's quota. */
  violations: number;
  /** Spurious 429 answers injected by `faults.rate429`. */
  injected429: number;
  /** Server errors injected by `faults.rate500`. */
  injected500: number;
}

/**
 * When each request a feed's quota counts (one naming an indicator with a valid key) arrived, on the emulator's
 * monotonic clock in ms: the feed's own view of a client's pace, to check against its quota.
 */
export type ArrivalLog = Readonly<Record<EmulatedFeed, readonly number[]>>;

/** The emulator's counters, per feed and in total. */
export interface EmulatorStats {
  feeds: Record<EmulatedFeed, FeedStats>;
  total: FeedStats;
}

/** A running emulator. */
export interface FeedEmulator {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** The base URL of each feed's API, for `apiKeys[feed].endpoint` (on `url`, or its own port with `portPerFeed`). */
  endpoints: Readonly<Record<EmulatedFeed, string>>;
  /** Makes `indicator` behave as told (for every feed, or those in `script.feeds`). */
  script(indicator: string, script: Behaviour | Script): void;
  /** The most recent requests, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** How many requests reached a feed (all feeds when omitted), optionally about one indicator. */
  count(feed?: EmulatedFeed, indicator?: string): number;
  /** Requests, quota violations and injected faults, per feed and in total. */
  stats(): EmulatorStats;
  /** Arrival times of the requests each feed's quota counts (kept whether or not the feed has a quota). */
  arrivals(): ArrivalLog;
  /**
   * How many requests are being held unanswered now (behaviour `hang`): one leaves the count when its client closes
   * it, so a test sees whether an aborted lookup really let go of its request.
   */
  hanging(): number;
  /**
   * Forgets recorded requests and counters (scripts stay), fills every quota's bucket and restarts the fault
   * sequence from its seed, so two runs separated by a reset meet the same conditions.
   */
  resetCounters(): void;
  /** Forgets scripts too. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts the emulator on 127.0.0.1. */
export async function startFeedEmulator(options: FeedEmulatorOptions = {}): Promise<FeedEmulator> {
  const scripts = new Map<string, Script[]>();
  const requests: RecordedRequest[] = [];
  const counts = new Map<string, number>();
  const keep = options.keepRequests ?? 10_000;
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const now = options.quotaClock ?? (() => performance.now());
  const wallClock = clockOf(options.now);
  const buckets = new Map<EmulatedFeed, TokenBucket>();
  for (const [feed, quota] of Object.entries(options.quotas ?? {}) as [EmulatedFeed, Quota | undefined][]) {
    if (quota) buckets.set(feed, new TokenBucket(quota, now));
  }
  const faults = options.faults ? new FaultInjector(options.faults) : undefined;
  const stats = new Map<EmulatedFeed, Omit<FeedStats, 'requests'>>();
  const statsOf = (feed: EmulatedFeed) => {
    let entry = stats.get(feed);
    if (!entry) {
      entry = { violations: 0, injected429: 0, injected500: 0 };
      stats.set(feed, entry);
    }
    return entry;
  };

  const behaviourFor = (
    feed: EmulatedFeed,
    indicator: string,
  ): { behaviour: Behaviour; latencyMs: number; ageDays: number } => {
    const script = scripts.get(indicator)?.find((s) => !s.feeds || s.feeds.includes(feed));
    const fallback =
      typeof options.defaultBehaviour === 'function'
        ? options.defaultBehaviour(feed, indicator)
        : (options.defaultBehaviour ?? 'not_found');
    return {
      behaviour: script?.behaviour ?? fallback,
      latencyMs: script?.latencyMs ?? options.latencyMs ?? 0,
      ageDays: script?.ageDays ?? 0,
    };
  };

  /** The vendor's answer, its dates moved from when it was recorded to the emulator's time (less `ageDays`). */
  const answer = (
    vendor: VendorApi,
    behaviour: Exclude<Behaviour, 'hang' | 'malformed'>,
    indicator: string,
    request: EmulatorRequest,
    ageDays = 0,
  ): EmulatorResponse => {
    const at = wallClock();
    const response = vendor.respond(behaviour, indicator, request, at);
    const shiftMs = at - vendor.recordedAt - ageDays * DAY_MS;
    const body = shiftDates(response.body, shiftMs, vendor.dateKeys);
    return body === response.body ? response : { ...response, body };
  };

  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const arrivals = new Map<EmulatedFeed, number[]>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const arrival = now();
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const vendor = Object.values(VENDORS).find(
      (v) => url.pathname === v.prefix || url.pathname.startsWith(`${v.prefix}/`),
    );
    const body = await readBody(req);
    if (!vendor) {
      send(res, { status: 404, body: { error: `no emulated API at ${url.pathname}` } });
      return;
    }
    const request: EmulatorRequest = {
      method: req.method ?? 'GET',
      path: url.pathname.slice(vendor.prefix.length) || '/',
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    const routed = vendor.route(request);
    const indicator = 'indicator' in routed ? routed.indicator : undefined;
    requests.push({
      ...request,
      feed: vendor.feed,
      url: req.url ?? '',
      ...(indicator === undefined ? {} : { indicator }),
    });
    if (requests.length > keep) requests.splice(0, requests.length - keep);
    bump(vendor.feed);
    if (indicator !== undefined) bump(`${vendor.feed}\u0000${indicator}`);
    const bucket = buckets.get(vendor.feed);
    // Answers that do not consult the quota still report its state, as every answer of a limited API does.
    let limitHeaders = bucket ? rateLimitHeaders(bucket.quota, bucket.peek(arrival), arrival) : {};
    if ('response' in routed) {
      send(res, withHeaders(routed.response, limitHeaders));
      return;
    }

    const key = vendor.key(request);
    if ((vendor.requiresKey && !key) || key === INVALID_KEY) {
      send(res, withHeaders(answer(vendor, 'unauthorized', routed.indicator, request), limitHeaders));
      return;
    }
    let arrived = arrivals.get(vendor.feed);
    if (!arrived) {
      arrived = [];
      arrivals.set(vendor.feed, arrived);
    }
    arrived.push(arrival);
    if (bucket) {
      const decision = bucket.take(arrival);
      limitHeaders = rateLimitHeaders(bucket.quota, decision, arrival);
      if (!decision.allowed) {
        // Refused at the gateway on arrival: no latency, as a real API's limiter answers before any work is done.
        statsOf(vendor.feed).violations += 1;
        const retryAfter = String(Math.max(1, Math.ceil(decision.waitMs / 1000)));
        send(
          res,
          withHeaders(answer(vendor, 'rate_limited', routed.indicator, request), {
            ...limitHeaders,
            'Retry-After': retryAfter,
          }),
        );
        return;
      }
    }
    const { behaviour, latencyMs, ageDays } = behaviourFor(vendor.feed, routed.indicator);
    // An injected fault has consumed its quota token above: the request reached the server, which then failed.
    const fault = faults?.next();
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (fault === 'rate_limited') {
      statsOf(vendor.feed).injected429 += 1;
      // A spurious limit gives no hint of when to come back: no Retry-After, and without a quota none of the
      // vendor's own X-RateLimit-* headers either (AbuseIPDB's describe its daily limit, which this is not).
      const drop = bucket ? ['retry-after'] : ['retry-after', ...RATE_LIMIT_HEADERS];
      send(res, withHeaders(answer(vendor, 'rate_limited', routed.indicator, request), limitHeaders, drop));
      return;
    }
    if (fault === 'server_error') {
      statsOf(vendor.feed).injected500 += 1;
      send(res, withHeaders(answer(vendor, 'server_error', routed.indicator, request), limitHeaders));
      return;
    }
    if (behaviour === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (behaviour === 'malformed') {
      send(
        res,
        withHeaders(
          { status: 200, headers: { 'content-type': 'application/json' }, body: '{"truncated": tru' },
          limitHeaders,
        ),
      );
      return;
    }
    send(res, withHeaders(answer(vendor, behaviour, routed.indicator, request, ageDays), limitHeaders));
  };

  const resetCounters = () => {
    requests.length = 0;
    counts.clear();
    arrivals.clear();
    stats.clear();
    for (const bucket of buckets.values()) bucket.refill();
    faults?.restart();
  };

  const servers: Server[] = [];
  const listen = async (port: number): Promise<string> => {
    const server = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        send(res, { status: 500, body: { emulatorError: (error as Error).message } });
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const closeAll = async () => {
    for (const res of hanging) res.destroy();
    const closed = Promise.all(
      servers.filter((s) => s.listening).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
    );
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  let url: string;
  const origins = new Map<EmulatedFeed, string>();
  try {
    url = await listen(options.port ?? 0);
    for (const feed of Object.keys(VENDORS) as EmulatedFeed[]) {
      origins.set(feed, options.portPerFeed ? await listen(0) : url);
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const port = Number(new URL(url).port);

  return {
    url,
    port,
    endpoints: Object.fromEntries(
      Object.values(VENDORS).map((v) => [v.feed, `${origins.get(v.feed)}${v.prefix}`]),
    ) as Record<EmulatedFeed, string>,
    script(indicator, script) {
      const entry = typeof script === 'string' ? { behaviour: script } : script;
      if (entry.ageDays !== undefined && !(Number.isFinite(entry.ageDays) && entry.ageDays >= 0)) {
        throw new RangeError(`script: ageDays must be a number of days, 0 or more; got ${String(entry.ageDays)}`);
      }
      // A script for particular feeds goes before a general one, so both can coexist for one indicator.
      const list = (scripts.get(indicator) ?? []).filter(
        (s) => JSON.stringify(s.feeds ?? null) !== JSON.stringify(entry.feeds ?? null),
      );
      list.push(entry);
      list.sort((a, b) => (a.feeds ? 0 : 1) - (b.feeds ? 0 : 1));
      scripts.set(indicator, list);
    },
    get requests() {
      return requests;
    },
    hanging() {
      return hanging.size;
    },
    count(feed, indicator) {
      if (feed === undefined) {
        return Object.keys(VENDORS).reduce((sum, f) => sum + (counts.get(f) ?? 0), 0);
      }
      return counts.get(indicator === undefined ? feed : `${feed}\u0000${indicator}`) ?? 0;
    },
    stats() {
      const total: FeedStats = { requests: 0, violations: 0, injected429: 0, injected500: 0 };
      const feeds = {} as Record<EmulatedFeed, FeedStats>;
      for (const feed of Object.keys(VENDORS) as EmulatedFeed[]) {
        const entry = { requests: counts.get(feed) ?? 0, ...statsOf(feed) };
        feeds[feed] = entry;
        total.requests += entry.requests;
        total.violations += entry.violations;
        total.injected429 += entry.injected429;
        total.injected500 += entry.injected500;
      }
      return { feeds, total };
    },
    arrivals() {
      return Object.fromEntries(
        (Object.keys(VENDORS) as EmulatedFeed[]).map((feed) => [feed, [...(arrivals.get(feed) ?? [])]]),
      ) as unknown as ArrivalLog;
    },
    resetCounters,
    reset() {
      resetCounters();
      scripts.clear();
    },
    close: closeAll,
  };
}

const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** `now` as a function of epoch ms; a fixed time stays fixed. */
function clockOf(now: FeedEmulatorOptions['now']): () => number {
  if (typeof now === 'function') return now;
  if (now === undefined) return Date.now;
  const fixed = now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(fixed)) throw new RangeError(`startFeedEmulator: now must be a time, got ${String(now)}`);
  return () => fixed;
}

function rateLimitHeaders(
  quota: Quota,
  state: { remaining: number; fullInMs: number },
  at: number,
): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(quota.burst),
    'X-RateLimit-Remaining': String(state.remaining),
    // `at` is on the monotonic clock; performance.timeOrigin turns it into wall-clock time.
    'X-RateLimit-Reset': String(Math.ceil((performance.timeOrigin + at + state.fullInMs) / 1000)),
  };
}

/**
 * A copy of `response` with the headers in `drop` and those in `set` removed whatever their case (vendors differ:
 * `Retry-After`, `retry-after`), then those in `set` added, so no header is ever sent twice.
 */
function withHeaders(
  response: EmulatorResponse,
  set: Record<string, string>,
  drop: readonly string[] = [],
): EmulatorResponse {
  const removed = new Set([...drop, ...Object.keys(set)].map((name) => name.toLowerCase()));
  if (removed.size === 0) return response;
  const kept = Object.entries(response.headers ?? {}).filter(([name]) => !removed.has(name.toLowerCase()));
  return { ...response, headers: { ...Object.fromEntries(kept), ...set } };
}

function send(res: ServerResponse, response: EmulatorResponse): void {
  if (res.headersSent || res.destroyed) return;
  const isText = typeof response.body === 'string';
  const body = response.body === undefined ? '' : isText ? (response.body as string) : JSON.stringify(response.body);
  res.writeHead(response.status, {
    ...(response.body !== undefined && !isText ? { 'content-type': 'application/json' } : {}),
    ...response.headers,
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
