// The pipeline between "ask feed F about indicator I" and the request itself: the cache, in-flight deduplication,
// the circuit breaker, the scheduler (quota and concurrency), retries and the lookup's time limit. Each feed's state
// is feed-status-board.ts; the cache of answers feed-answer-cache.ts.

import type { CacheStore } from '../cache/cache-store.js';
import type { ResolvedConfig } from '../config/schema.js';
import { RateLimitError } from '../errors/rate-limit-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { Feed } from '../feeds/feed.js';
import { failure, retryAfter } from '../feeds/feed-response.js';
import type { FeedResult, FeedStatus } from '../feeds/feed-result.js';
import type { HttpClient } from '../http/http-client.js';
import type { Indicator } from '../indicators/index.js';
import type { Logger } from '../logging/logger.js';
import type { CircuitBreaker, FeedBreaker } from '../scheduler/circuit-breaker.js';
import type { Clock } from '../scheduler/clock.js';
import type { FeedScheduler } from '../scheduler/feed-scheduler.js';
import { isoTime } from '../scheduler/iso-time.js';
import { isRetryable, retryDelay } from '../scheduler/retry-policy.js';
import type { CorsProxy } from './cors-proxy.js';
import { answerKey, cacheAnswer, cachedAnswer } from './feed-answer-cache.js';
import { executeFeedRequest, type FeedRequest } from './feed-runner.js';
import { type FeedMonitor, FeedStatusBoard, type FeedStatusReport } from './feed-status-board.js';

export type { FeedMonitor, FeedStatusReport };

/** The time limit of the lookup a request belongs to (`performance.lookupTimeout`, or the call's `timeoutMs`). */
export interface LookupLimit {
  /** Epoch ms, on the client's clock, when the lookup ends whether or not the feed has answered. */
  endsAt: number;
  /** Its length in ms, for messages. */
  ms: number;
  /** Aborts when the limit is reached (one timer per call, however many feeds it asks). */
  reached: AbortSignal;
}

/** A lookup to make, after the engine resolved key, endpoint and options. */
export interface PipelineRequest extends Omit<FeedRequest, 'feed' | 'indicator' | 'timeoutMessage'> {
  /** Epoch ms by which the request must have been sent (a quota that cannot meet it answers `rate_limited`). */
  deadline?: number | undefined;
  /** What `deadline` is, in messages (`the deadline`, `the lookup's time limit ...`). */
  deadlineName?: string | undefined;
  /**
   * When the caller stops waiting: the answer then is `timeout`, or `rate_limited` with `error.retryAt` when the
   * feed is paused or out of quota, and the caller's part of the work stops.
   */
  limit?: LookupLimit | undefined;
}

/**
 * One request to a feed about one indicator, shared by every caller who asks the same while it runs. It runs under
 * a controller of its own, aborted when the last caller has left: a caller's abort never cuts another's answer, and
 * nothing goes on once nobody waits.
 */
interface Flight {
  promise: Promise<FeedResult>;
  readonly controller: AbortController;
  callers: number;
  /** What it is doing, for the answer a caller whose time limit passes gets. */
  phase: 'queued' | 'running' | 'backoff';
}

/**
 * Shares lookups with other processes (a cluster's {@link SharedFlights}): `run` does `work` unless another process
 * is asking the same (`key`), and then resolves with that one's answer.
 */
interface FlightSharing {
  run<T>(key: string, work: () => Promise<T>, options: { signal: AbortSignal; onShared?: () => void }): Promise<T>;
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
  /** Lookups shared with other processes (a cluster); absent, each process asks for itself. */
  flights?: FlightSharing | undefined;
  /** The proxy every feed request goes through (`browser.corsProxy`). */
  proxy?: CorsProxy | undefined;
  /** A feed's breaker shared with other processes (a cluster), falling back to `local`. */
  breakerFor?: ((feed: string, local: CircuitBreaker, onOpened: () => void) => FeedBreaker) | undefined;
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
  readonly #board: FeedStatusBoard;
  readonly #inFlight = new Map<string, Flight>();

  constructor(deps: FeedPipelineDeps) {
    this.#deps = deps;
    this.#board = new FeedStatusBoard(deps);
  }

  /**
   * Asks `feed` about `indicator`, from the cache when it can, sharing a request already in flight. Rejects with the
   * reason of `request.signal` as soon as it aborts; resolves by `request.limit` whatever the feed does.
   */
  lookup(feed: Feed, indicator: Indicator, request: PipelineRequest): Promise<FeedResult> {
    const { signal, limit } = request;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (limit?.reached.aborted) return Promise.resolve(this.#expired(feed, indicator, limit, undefined));
    // This caller's part of the work: aborted when the caller gives up (its signal, its time limit).
    const caller = new AbortController();
    const state: { flight?: Flight } = {};
    const work = this.#lookupShared(feed, indicator, request, caller.signal, state);
    if (!signal && !limit) return work;
    return new Promise<FeedResult>((resolve, reject) => {
      const settle = () => {
        signal?.removeEventListener('abort', onAbort);
        limit?.reached.removeEventListener('abort', onLimit);
      };
      const onAbort = () => {
        settle();
        caller.abort(signal?.reason);
        reject(signal?.reason);
      };
      const onLimit = () => {
        settle();
        const result = this.#expired(feed, indicator, limit as LookupLimit, state.flight);
        caller.abort(new Error(result.error?.message ?? result.status));
        resolve(result);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      limit?.reached.addEventListener('abort', onLimit, { once: true });
      work.then(
        (result) => {
          settle();
          resolve(result);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }

  async #lookupShared(
    feed: Feed,
    indicator: Indicator,
    request: PipelineRequest,
    callerSignal: AbortSignal,
    state: { flight?: Flight },
  ): Promise<FeedResult> {
    const stats = this.#board.of(feed.id);
    const key = answerKey(feed.id, indicator, request);
    const cached = await cachedAnswer(this.#deps, key);
    callerSignal.throwIfAborted();
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
    let flight = this.#inFlight.get(key);
    if (flight) stats.deduplicated += 1;
    else {
      const controller = new AbortController();
      const started: Flight = { controller, callers: 0, phase: 'queued', promise: Promise.resolve() as never };
      const fetch = () => this.#fetch(feed, indicator, { ...request, signal: controller.signal }, key, started);
      const { flights } = this.#deps;
      started.promise = flights
        ? flights.run(key, fetch, {
            signal: controller.signal,
            onShared: () => {
              stats.deduplicated += 1;
            },
          })
        : fetch();
      // Settled or abandoned, it leaves the map; its rejection (an abort nobody waits for) is nobody's to handle.
      started.promise
        .finally(() => {
          if (this.#inFlight.get(key) === started) this.#inFlight.delete(key);
        })
        .catch(() => {});
      this.#inFlight.set(key, started);
      flight = started;
    }
    state.flight = flight;
    return this.#join(flight, key, callerSignal);
  }

  /** Waits for `flight` until `callerSignal` aborts; the last caller to leave aborts the request. */
  #join(flight: Flight, key: string, callerSignal: AbortSignal): Promise<FeedResult> {
    flight.callers += 1;
    return new Promise<FeedResult>((resolve, reject) => {
      const leave = () => {
        flight.callers -= 1;
        if (flight.callers === 0) {
          if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
          flight.controller.abort(callerSignal.reason);
        }
        reject(callerSignal.reason);
      };
      callerSignal.addEventListener('abort', leave, { once: true });
      flight.promise.then(
        (result) => {
          callerSignal.removeEventListener('abort', leave);
          resolve(result);
        },
        (error: unknown) => {
          callerSignal.removeEventListener('abort', leave);
          reject(error);
        },
      );
    });
  }

  /**
   * The answer of a caller whose time limit passed before the feed answered: `rate_limited` with the time it reopens
   * while its quota or a pause holds the request, `timeout` otherwise. Counted and reported as any final result.
   */
  #expired(feed: Feed, indicator: Indicator, limit: LookupLimit, flight: Flight | undefined): FeedResult {
    const { scheduler, clock, events } = this.#deps;
    const now = clock.now();
    const base = { feed: feed.id, indicator: indicator.value, type: indicator.type, cached: false, durationMs: 0 };
    const within = `the lookup's time limit of ${limit.ms} ms (performance.lookupTimeout)`;
    let result: FeedResult;
    const next = flight?.phase === 'queued' ? scheduler.nextAvailable(feed.id) : undefined;
    if (next && next.at > now) {
      const retryAt = isoTime(Math.ceil(next.at));
      const what =
        next.window === 'pause' ? 'pause (the feed asked us to wait)' : `${next.window} quota (${next.limit})`;
      result = {
        ...base,
        ...failure(
          'rate_limited',
          `${feed.id}: no room in its ${what} before ${within}; next request possible at ${retryAt}`,
          {
            retryAt,
          },
        ),
      };
      events.emit('rateLimited', feed.id);
    } else if (next) {
      result = {
        ...base,
        ...failure(
          'timeout',
          `${feed.id}: waited for one of the ${scheduler.concurrency} request slots (performance.maxConcurrency) until ${within}`,
        ),
      };
    } else {
      result = { ...base, ...failure('timeout', limitMessage(feed.id, limit)) };
    }
    const stats = this.#board.of(feed.id);
    stats.byStatus[result.status] = (stats.byStatus[result.status] ?? 0) + 1;
    this.#board.report(result);
    return result;
  }

  /** The state of each feed in `feeds`. */
  status(feeds: ReadonlyArray<{ feed: Feed; configured: boolean }>): FeedStatusReport[] {
    return this.#board.status(feeds);
  }

  async #fetch(
    feed: Feed,
    indicator: Indicator,
    request: PipelineRequest,
    key: string,
    flight: Flight,
  ): Promise<FeedResult> {
    const { config, clock, scheduler, events } = this.#deps;
    const stats = this.#board.of(feed.id);
    const base = { feed: feed.id, indicator: indicator.value, type: indicator.type, cached: false };
    const attempts = config.performance.retryAttempts + 1;
    const { limit, timeoutMs, deadline, deadlineName, ...rest } = request;
    let result: FeedResult | undefined;

    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) {
        const previous = result as FeedResult;
        const waitMs = this.#retryWait(previous, attempt);
        // A retry that could only start once the caller has stopped waiting is not made: the caller gets the
        // failure it has, now, rather than a timeout later.
        if (limit && waitMs > 0 && clock.now() + waitMs >= limit.endsAt) {
          result = noted(
            previous,
            `not retried: the next attempt would start after the lookup's time limit of ${limit.ms} ms (performance.lookupTimeout)`,
          );
          break;
        }
        if (waitMs > 0) {
          flight.phase = 'backoff';
          await sleep(clock, waitMs, request.signal);
        }
      }
      if (!(await stats.breaker.tryAcquire())) {
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
      flight.phase = 'queued';
      let cut = false;
      let execution: Awaited<ReturnType<typeof executeFeedRequest>>;
      try {
        execution = await scheduler.schedule(
          feed.id,
          () => {
            flight.phase = 'running';
            stats.sent += 1;
            if (attempt > 0) stats.retries += 1;
            // An attempt gets its own timeout, or what is left of the lookup's time limit when that is less.
            const left = limit ? Math.max(1, limit.endsAt - clock.now()) : Number.POSITIVE_INFINITY;
            cut = left < timeoutMs;
            return executeFeedRequest(
              {
                ...rest,
                feed,
                indicator,
                timeoutMs: cut ? left : timeoutMs,
                ...(cut && limit ? { timeoutMessage: limitMessage(feed.id, limit) } : {}),
              },
              this.#deps,
            );
          },
          { deadline, deadlineName, signal: request.signal },
        );
      } catch (error) {
        stats.breaker.release();
        if (!RateLimitError.isInstance(error)) throw error;
        const retryAt = isoTime(Math.ceil(error.availableAt));
        if (error.window === 'concurrency') {
          // Our own limit on requests at once, not the feed's: the lookup ran out of time.
          result = { ...base, durationMs: 0, ...failure('timeout', error.message) };
        } else if (result?.status === 'rate_limited') {
          // The feed's own 429 said so already (and fired rateLimited); its retry cannot be sent in time.
          result = { ...result, error: { ...(result.error ?? { message: result.status }), retryAt } };
        } else {
          result = { ...base, durationMs: 0, ...failure('rate_limited', error.message, { retryAt }) };
          events.emit('rateLimited', feed.id);
        }
        break;
      }
      result = { ...execution.lookup, ...base, durationMs: execution.durationMs };
      stats.latency.record(execution.durationMs);
      events.emit('requestComplete', execution.durationMs, feed.id);
      result = this.#observeLimits(feed.id, result, execution.headers);
      // A timeout the lookup's time limit imposed says nothing about the feed's health.
      const limitedByCaller = cut && result.status === 'timeout';
      if (BREAKER_FAILURES.has(result.status) && !limitedByCaller) {
        stats.failing = result;
        stats.breaker.failure();
        stats.failing = undefined;
      } else if (result.status === 'rate_limited' || limitedByCaller) stats.breaker.release();
      else stats.breaker.success();
      if (limitedByCaller || !isRetryable(result)) break;
    }

    const final = result as FeedResult;
    stats.byStatus[final.status] = (stats.byStatus[final.status] ?? 0) + 1;
    if (final.status === 'ok' || final.status === 'not_found') stats.keyRejected = undefined;
    this.#board.report(final);
    if (final.status === 'ok' || final.status === 'not_found') await cacheAnswer(this.#deps, key, final);
    return final;
  }

  /** How long to wait before retry `attempt`: the backoff, or the feed's Retry-After when it asked for longer. */
  #retryWait(previous: FeedResult, attempt: number): number {
    const backoff = retryDelay(attempt, this.#deps.config.performance, this.#deps.random);
    // A 429's Retry-After already paused the feed in the scheduler; the retry simply queues behind the pause.
    return previous.status === 'rate_limited' && previous.error?.retryAfterMs !== undefined ? 0 : backoff;
  }

  /**
   * Retry-After and X-RateLimit-Remaining: 0 pause the feed for everyone, not just this request. A 429 that said how
   * long to wait gets `error.retryAt`, when the feed takes requests again.
   */
  #observeLimits(feed: string, result: FeedResult, headers: Record<string, string> | undefined): FeedResult {
    const now = this.#deps.clock.now();
    if (result.status === 'rate_limited') {
      this.#deps.events.emit('rateLimited', feed);
      const wait = result.error?.retryAfterMs ?? (headers ? retryAfter(headers, now) : undefined);
      if (wait === undefined || wait <= 0) return result;
      this.#deps.scheduler.pause(feed, now + wait);
      return {
        ...result,
        error: { ...(result.error ?? { message: result.status }), retryAt: isoTime(Math.ceil(now + wait)) },
      };
    }
    if (headers?.['x-ratelimit-remaining']?.trim() === '0') {
      const wait = retryAfter({ 'x-ratelimit-reset': headers['x-ratelimit-reset'] ?? '' }, now);
      if (wait !== undefined && wait > 0) this.#deps.scheduler.pause(feed, now + wait);
    }
    return result;
  }
}

/** The failure of a request the lookup's time limit cut short. */
function limitMessage(feed: string, limit: LookupLimit): string {
  return `${feed} did not answer within the lookup's time limit of ${limit.ms} ms (performance.lookupTimeout)`;
}

/** `result` with `note` added to its reason. */
function noted(result: FeedResult, note: string): FeedResult {
  const message = `${result.error?.message ?? result.evidence[0] ?? result.status}; ${note}`;
  return {
    ...result,
    evidence: [message, ...result.evidence.slice(1)],
    error: { ...(result.error ?? {}), message },
  };
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
