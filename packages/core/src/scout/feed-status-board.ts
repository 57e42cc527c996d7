// The state of each feed the pipeline asks: its counters, breaker, latency, last error and refused key, what a failed
// answer tells (events, logs, the monitoring alerts), and the report `client.feedStatus()` returns.

import type { Feed } from '../feeds/feed.js';
import type { FeedResult, FeedStatus } from '../feeds/feed-result.js';
import { type BreakerStatus, CircuitBreaker, type FeedBreaker } from '../scheduler/circuit-breaker.js';
import type { WindowStatus } from '../scheduler/feed-quota.js';
import { LatencyTracker } from '../scheduler/latency-tracker.js';
import type { FeedPipelineDeps } from './feed-pipeline.js';

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

/** The request counters of one feed, as its report shows them. */
type FeedRequestCounts = FeedStatusReport['requests'];

/** What the pipeline counts of one feed, beside its breaker. */
export interface FeedStats extends FeedRequestCounts, Pick<FeedStatusReport, 'lastError' | 'keyRejected'> {
  /** The failure being counted against the breaker, so that an alert about its opening can say what failed. */
  failing?: FeedResult;
  latency: LatencyTracker;
  breaker: FeedBreaker;
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

/** What the board needs from the pipeline's client. */
type FeedStatusBoardDeps = Pick<
  FeedPipelineDeps,
  'config' | 'clock' | 'logger' | 'events' | 'scheduler' | 'monitor' | 'breakerFor'
>;

/** The state of each feed the feed pipeline asks, made on first use: what `client.feedStatus()` reports. */
export class FeedStatusBoard {
  readonly #deps: FeedStatusBoardDeps;
  readonly #stats = new Map<string, FeedStats>();

  constructor(deps: FeedStatusBoardDeps) {
    this.#deps = deps;
  }

  /** The state of each feed in `feeds`. */
  status(feeds: ReadonlyArray<{ feed: Feed; configured: boolean }>): FeedStatusReport[] {
    return feeds.map(({ feed, configured }) => {
      const stats = this.of(feed.id);
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

  /**
   * Records a final result that is not an answer (a failure, a refusal, a rate limit): the feed's last error, a
   * refused key, and the event, log line and monitoring alert it calls for.
   */
  report(result: FeedResult): void {
    const { events, logger, clock } = this.#deps;
    if (result.status === 'ok' || result.status === 'not_found' || result.status === 'unsupported') return;
    const stats = this.of(result.feed);
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

  /** The state of `feed`, made on first use. */
  of(feed: string): FeedStats {
    let stats = this.#stats.get(feed);
    if (!stats) {
      const opened = () => {
        const failing = this.#stats.get(feed)?.failing;
        this.#tellMonitor((monitor) =>
          monitor.breakerOpened(feed, {
            breaker: (this.#stats.get(feed)?.breaker ?? local).status(),
            ...(failing
              ? { failure: { status: failing.status, message: failing.error?.message ?? failing.status } }
              : {}),
          }),
        );
      };
      const { breakerFor } = this.#deps;
      const local = new CircuitBreaker(this.#deps.config.performance.circuitBreaker, this.#deps.clock, (state) => {
        this.#deps.logger.warn({ feed, breaker: state }, `${feed} circuit breaker is now ${state.replace('_', '-')}`);
        // A shared breaker tells when the cluster's opens; this one then only mirrors this client's own view.
        if (state === 'open' && !breakerFor) opened();
      });
      stats = {
        sent: 0,
        retries: 0,
        cacheHits: 0,
        deduplicated: 0,
        byStatus: {},
        latency: new LatencyTracker(),
        breaker: breakerFor
          ? breakerFor(feed, local, () => {
              this.#deps.logger.warn({ feed, breaker: 'open' }, `${feed} circuit breaker is now open for the cluster`);
              opened();
            })
          : local,
      };
      this.#stats.set(feed, stats);
    }
    return stats;
  }
}
