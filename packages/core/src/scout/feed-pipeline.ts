import { cacheKey, fingerprint } from '../cache/cache-key.js';
import type { CacheStore } from '../cache/cache-store.js';
import { sha256Hex } from '../cache/sha256.js';
import type { ResolvedConfig } from '../config/schema.js';
import { RateLimitError } from '../errors/rate-limit-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { Feed, FeedLookupResult } from '../feeds/feed.js';
import { failure, retryAfter } from '../feeds/feed-response.js';
import type { FeedResult, FeedStatus } from '../feeds/feed-result.js';
import type { HttpClient } from '../http/http-client.js';
import type { Indicator } from '../indicators/index.js';
import type { Logger } from '../logging/logger.js';
import { type BreakerStatus, CircuitBreaker } from '../scheduler/circuit-breaker.js';
import type { Clock } from '../scheduler/clock.js';
import type { WindowStatus } from '../scheduler/feed-quota.js';
import type { FeedScheduler } from '../scheduler/feed-scheduler.js';
import { LatencyTracker } from '../scheduler/latency-tracker.js';
import { isRetryable, retryDelay } from '../scheduler/retry-policy.js';
import { executeFeedRequest, type FeedRequest } from './feed-runner.js';

/** One feed's state, as `client.feedStatus()` reports it (and the REST `/feeds/status` returns it). */
export interface FeedStatusReport {
  feed: string;
  name: string;
  /** Whether it can be asked: it needs no key, or has one. */
  configured: boolean;
  breaker: BreakerStatus;
  /** Its quota windows and what is left of each. */
  quota: WindowStatus[];
  /** The quota in words (`4/minute, 500/day`). */
  limits: string;
  /** ISO 8601, while the feed has asked us to wait. */
  pausedUntil?: string;
  /** Requests waiting for quota or a slot, and running. */
  queued: number;
  inFlight: number;
  requests: {
    /** Requests sent to the feed (retries included). */
    sent: number;
    /** Of those, retries. */
    retries: number;
    /** Answers served from the cache instead. */
    cacheHits: number;
    /** Lookups that shared a request already in flight. */
    deduplicated: number;
    /** Final results by status. */
    byStatus: Partial<Record<FeedStatus, number>>;
  };
  lastError?: { message: string; status: FeedStatus; at: string };
  /** Present while the feed's latest answer was a refusal of its API key (HTTP 401/403); a later answer clears it. */
  keyRejected?: { at: string; statusCode?: number };
  /** Request latency over the last 1,000 requests. */
  latencyMs: { p50: number | null; p95: number | null; samples: number };
}

interface FeedStats {
  sent: number;
  retries: number;
  cacheHits: number;
  deduplicated: number;
  byStatus: Partial<Record<FeedStatus, number>>;
  lastError?: { message: string; status: FeedStatus; at: string };
  keyRejected?: { at: string; statusCode?: number };
  /** The failure being counted against the breaker, so that an alert about its opening can say what failed. */
  failing?: FeedResult;
  latency: LatencyTracker;
  breaker: CircuitBreaker;
}

/**
 * Told when a feed needs a person's attention (the client's monitoring alerts). Called in the middle of a lookup:
 * it must return at once; whatever it throws is caught and logged.
 */
export interface FeedMonitor {
  /** The feed's breaker has just opened; `failure` is the failure that opened it. */
  breakerOpened(
    feed: string,
    detail: { breaker: BreakerStatus; failure?: { status: FeedStatus; message: string } },
  ): void;
  /** The feed refused its API key. */
  keyRejected(feed: string, detail: { statusCode?: number; message: string }): void;
}

/** A lookup to make, after the engine resolved key, endpoint and options. */
export interface PipelineRequest extends Omit<FeedRequest, 'feed' | 'indicator'> {
  /** Epoch ms by which the request must have been sent (a quota that cannot meet it answers `rate_limited`). */
  deadline?: number | undefined;
}

/** What the pipeline needs from the client. */
export interface FeedPipelineDeps {
  config: ResolvedConfig;
  http: HttpClient;
  logger: Logger;
  events: EventBus<ThreatEvents>;
  scheduler: FeedScheduler;
  cache: CacheStore | undefined;
  clock: Clock;
  random?: () => number;
  monitor?: FeedMonitor;
}

// Failures that say something about the feed's health; a 429 or a cancelled request does not.
const BREAKER_FAILURES: ReadonlySet<FeedStatus> = new Set(['error', 'timeout', 'auth_error']);

/**
 * Everything between "ask feed F about indicator I" and the request itself: the cache, in-flight deduplication,
 * the circuit breaker, the scheduler (quota and concurrency) and retries, and the per-feed counters behind
 * `feedStatus()`.
 */
export class FeedPipeline {
  readonly #deps: FeedPipelineDeps;
  readonly #stats = new Map<string, FeedStats>();
  readonly #inFlight = new Map<string, Promise<FeedResult>>();

  constructor(deps: FeedPipelineDeps) {
    this.#deps = deps;
  }

  /** Asks `feed` about `indicator`, from the cache when it can, sharing a request already in flight. */
  async lookup(feed: Feed, indicator: Indicator, request: PipelineRequest): Promise<FeedResult> {
    const stats = this.#statsOf(feed.id);
    const key = cacheKey({
      feed: feed.id,
      type: indicator.type,
      value: indicator.value,
      // Whatever changes the answer: the endpoint, the feed's options, which key asks (never the key itself).
      fingerprint: fingerprint([
        request.endpoint,
        request.options,
        request.apiKey === undefined ? null : sha256Hex(request.apiKey),
        request.includeRaw,
      ]),
    });
    const cached = await this.#fromCache(key);
    if (cached) {
      stats.cacheHits += 1;
      return {
        ...cached,
        feed: feed.id,
        indicator: indicator.value,
        type: indicator.type,
        cached: true,
        durationMs: 0,
      };
    }
    const shared = this.#inFlight.get(key);
    if (shared) {
      stats.deduplicated += 1;
      return shared;
    }
    const pending = this.#fetch(feed, indicator, request, key).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, pending);
    return pending;
  }

  /** The state of each feed in `feeds`. */
  status(feeds: ReadonlyArray<{ feed: Feed; configured: boolean }>): FeedStatusReport[] {
    return feeds.map(({ feed, configured }) => {
      const stats = this.#statsOf(feed.id);
      const schedule = this.#deps.scheduler.status(feed.id);
      return {
        feed: feed.id,
        name: feed.name,
        configured,
        breaker: stats.breaker.status(),
        quota: schedule.quota,
        limits: schedule.limits,
        ...(schedule.pausedUntil ? { pausedUntil: schedule.pausedUntil } : {}),
        queued: schedule.queued,
        inFlight: schedule.inFlight,
        requests: {
          sent: stats.sent,
          retries: stats.retries,
          cacheHits: stats.cacheHits,
          deduplicated: stats.deduplicated,
          byStatus: { ...stats.byStatus },
        },
        ...(stats.lastError ? { lastError: { ...stats.lastError } } : {}),
        ...(stats.keyRejected ? { keyRejected: { ...stats.keyRejected } } : {}),
        latencyMs: stats.latency.percentiles(),
      };
    });
  }

  async #fetch(feed: Feed, indicator: Indicator, request: PipelineRequest, key: string): Promise<FeedResult> {
    const { config, clock, scheduler, events } = this.#deps;
    const stats = this.#statsOf(feed.id);
    const base = { feed: feed.id, indicator: indicator.value, type: indicator.type, cached: false };
    const attempts = config.performance.retryAttempts + 1;
    let result: FeedResult | undefined;

    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) {
        const waitMs = this.#retryWait(result as FeedResult, attempt);
        if (waitMs > 0) await sleep(clock, waitMs, request.signal);
      }
      if (!stats.breaker.tryAcquire()) {
        const status = stats.breaker.status();
        result = {
          ...base,
          durationMs: 0,
          ...failure(
            'circuit_open',
            `${feed.id} is failing: its circuit breaker is open${status.nextTrialAt ? ` until ${status.nextTrialAt}` : ''}, so it was not asked`,
          ),
        };
        break;
      }
      let execution: Awaited<ReturnType<typeof executeFeedRequest>>;
      try {
        execution = await scheduler.schedule(
          feed.id,
          () => {
            stats.sent += 1;
            if (attempt > 0) stats.retries += 1;
            return executeFeedRequest({ ...request, feed, indicator }, this.#deps);
          },
          { deadline: request.deadline, signal: request.signal },
        );
      } catch (error) {
        stats.breaker.release();
        if (!RateLimitError.isInstance(error)) throw error;
        result = { ...base, durationMs: 0, ...failure('rate_limited', error.message) };
        events.emit('rateLimited', feed.id);
        break;
      }
      result = { ...execution.lookup, ...base, durationMs: execution.durationMs };
      stats.latency.record(execution.durationMs);
      events.emit('requestComplete', execution.durationMs, feed.id);
      this.#observeLimits(feed.id, result, execution.headers);
      if (BREAKER_FAILURES.has(result.status)) {
        stats.failing = result;
        stats.breaker.failure();
        stats.failing = undefined;
      } else if (result.status === 'rate_limited') stats.breaker.release();
      else stats.breaker.success();
      if (!isRetryable(result)) break;
    }

    const final = result as FeedResult;
    stats.byStatus[final.status] = (stats.byStatus[final.status] ?? 0) + 1;
    if (final.status === 'ok' || final.status === 'not_found') stats.keyRejected = undefined;
    this.#report(final);
    if (final.status === 'ok' || final.status === 'not_found') await this.#toCache(key, final);
    return final;
  }

  /** How long to wait before retry `attempt`: the backoff, or the feed's Retry-After when it asked for longer. */
  #retryWait(previous: FeedResult, attempt: number): number {
    const backoff = retryDelay(attempt, this.#deps.config.performance, this.#deps.random);
    // A 429's Retry-After already paused the feed in the scheduler; the retry simply queues behind the pause.
    return previous.status === 'rate_limited' && previous.error?.retryAfterMs !== undefined ? 0 : backoff;
  }

  /** Retry-After and X-RateLimit-Remaining: 0 pause the feed for everyone, not just this request. */
  #observeLimits(feed: string, result: FeedResult, headers: Record<string, string> | undefined): void {
    const now = this.#deps.clock.now();
    if (result.status === 'rate_limited') {
      this.#deps.events.emit('rateLimited', feed);
      const wait = result.error?.retryAfterMs ?? (headers ? retryAfter(headers, now) : undefined);
      if (wait !== undefined && wait > 0) this.#deps.scheduler.pause(feed, now + wait);
      return;
    }
    if (headers?.['x-ratelimit-remaining']?.trim() === '0') {
      const wait = retryAfter({ 'x-ratelimit-reset': headers['x-ratelimit-reset'] ?? '' }, now);
      if (wait !== undefined && wait > 0) this.#deps.scheduler.pause(feed, now + wait);
    }
  }

  #report(result: FeedResult): void {
    const { events, logger, clock } = this.#deps;
    if (result.status === 'ok' || result.status === 'not_found' || result.status === 'unsupported') return;
    const stats = this.#statsOf(result.feed);
    const message =
      result.status === 'auth_error'
        ? `The API key for ${result.feed} is invalid or was refused${result.error?.statusCode ? ` (HTTP ${result.error.statusCode})` : ''}`
        : (result.error?.message ?? `${result.feed} failed: ${result.status}`);
    const at = new Date(clock.now()).toISOString();
    stats.lastError = { message, status: result.status, at };
    if (result.status === 'auth_error') {
      const statusCode = result.error?.statusCode;
      stats.keyRejected = { at, ...(statusCode === undefined ? {} : { statusCode }) };
      this.#tellMonitor((monitor) =>
        monitor.keyRejected(result.feed, { message, ...(statusCode === undefined ? {} : { statusCode }) }),
      );
    }
    if (result.status === 'rate_limited') {
      logger.warn({ feed: result.feed, retryAfterMs: result.error?.retryAfterMs }, message);
      return;
    }
    const context = {
      status: result.status,
      indicator: result.indicator,
      ...(result.error?.statusCode === undefined ? {} : { statusCode: result.error.statusCode }),
    };
    events.emit('feedError', { message, context }, result.feed);
    logger.warn({ feed: result.feed, ...context }, message);
  }

  async #fromCache(key: string): Promise<FeedLookupResult | undefined> {
    const cache = this.#deps.cache;
    if (!cache) return undefined;
    try {
      return (await cache.get<FeedLookupResult>(key))?.value;
    } catch (error) {
      // A cache outage costs requests, never answers.
      this.#deps.logger.warn({ category: 'cache', err: error }, 'cache read failed; asking the feed');
      return undefined;
    }
  }

  async #toCache(key: string, result: FeedResult): Promise<void> {
    const cache = this.#deps.cache;
    if (!cache) return;
    const { caching } = this.#deps.config;
    const ttl = result.verdict === 'malicious' || result.verdict === 'suspicious' ? caching.ttl : caching.negativeTtl;
    const { feed: _f, indicator: _i, type: _t, cached: _c, durationMs: _d, ...value } = result;
    try {
      await cache.set(key, value, ttl);
    } catch (error) {
      this.#deps.logger.warn({ category: 'cache', err: error }, 'cache write failed; the answer is returned uncached');
    }
  }

  /** Calls the monitor, if any, without letting it fail the lookup. */
  #tellMonitor(call: (monitor: FeedMonitor) => void): void {
    const monitor = this.#deps.monitor;
    if (!monitor) return;
    try {
      call(monitor);
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'feed monitor failed; the lookup goes on');
    }
  }

  #statsOf(feed: string): FeedStats {
    let stats = this.#stats.get(feed);
    if (!stats) {
      const breaker = new CircuitBreaker(this.#deps.config.performance.circuitBreaker, this.#deps.clock, (state) => {
        this.#deps.logger.warn({ feed, breaker: state }, `${feed} circuit breaker is now ${state.replace('_', '-')}`);
        if (state !== 'open') return;
        const failing = this.#stats.get(feed)?.failing;
        this.#tellMonitor((monitor) =>
          monitor.breakerOpened(feed, {
            breaker: breaker.status(),
            ...(failing
              ? { failure: { status: failing.status, message: failing.error?.message ?? failing.status } }
              : {}),
          }),
        );
      });
      stats = {
        sent: 0,
        retries: 0,
        cacheHits: 0,
        deduplicated: 0,
        byStatus: {},
        latency: new LatencyTracker(),
        breaker,
      };
      this.#stats.set(feed, stats);
    }
    return stats;
  }
}

function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
