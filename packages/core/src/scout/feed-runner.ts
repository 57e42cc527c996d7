import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { Feed, FeedLookupResult } from '../feeds/feed.js';
import { failure } from '../feeds/feed-response.js';
import { FEED_STATUSES, type FeedResult } from '../feeds/feed-result.js';
import type { HttpClient } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import type { Indicator } from '../indicators/index.js';
import type { Logger } from '../logging/logger.js';
import type { ConcurrencyLimiter } from '../scheduler/concurrency-limiter.js';

/** What the runner needs from the client. */
export interface FeedRunnerDeps {
  http: HttpClient;
  logger: Logger;
  events: EventBus<ThreatEvents>;
  limiter: ConcurrencyLimiter;
}

/** One request to make: which feed, where, with which key and limits. */
export interface FeedRequest {
  feed: Feed;
  indicator: Indicator;
  endpoint: string;
  apiKey?: string;
  options: Readonly<Record<string, unknown>>;
  timeoutMs: number;
  includeRaw: boolean;
  signal?: AbortSignal;
}

/**
 * Asks one feed about one indicator, within the client's concurrency limit and the request's timeout, and turns
 * whatever happens into a {@link FeedResult}: an exception, a timeout or a malformed answer from a third-party feed
 * becomes a failure status, never a clean verdict. Emits `requestComplete` after the request, `rateLimited` on
 * 429, and `feedError` for every other failure (its message names the feed; its context never holds the key).
 */
export async function runFeedRequest(request: FeedRequest, deps: FeedRunnerDeps): Promise<FeedResult> {
  const { feed, indicator } = request;
  let started = 0;
  // Only the caller's own abort escapes as an exception; everything else becomes a result.
  const lookup = await deps.limiter.run(async (): Promise<FeedLookupResult> => {
    started = performance.now();
    const timeout = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    try {
      const result = await feed.lookup(indicator, {
        signal,
        endpoint: request.endpoint.replace(/\/+$/, ''),
        http: deps.http,
        options: request.options,
        includeRaw: request.includeRaw,
        logger: deps.logger,
        ...(request.apiKey === undefined ? {} : { apiKey: request.apiKey }),
      });
      return checkLookupResult(feed.id, result);
    } catch (error) {
      if (timeout.aborted && !request.signal?.aborted) {
        return failure('timeout', `${feed.id} did not answer within ${request.timeoutMs} ms`);
      }
      if (request.signal?.aborted) throw request.signal.reason;
      return failure('error', describeFailure(feed.id, error));
    }
  }, request.signal);
  const durationMs = Math.round((performance.now() - started) * 100) / 100;
  const result: FeedResult = {
    ...lookup,
    feed: feed.id,
    indicator: indicator.value,
    type: indicator.type,
    durationMs,
    cached: false,
  };
  deps.events.emit('requestComplete', durationMs, feed.id);
  report(result, deps);
  return result;
}

function report(result: FeedResult, deps: FeedRunnerDeps): void {
  if (result.status === 'rate_limited') {
    deps.events.emit('rateLimited', result.feed);
    deps.logger.warn({ feed: result.feed, retryAfterMs: result.error?.retryAfterMs }, `${result.feed} rate limited`);
    return;
  }
  if (result.status === 'ok' || result.status === 'not_found') return;
  const message =
    result.status === 'auth_error'
      ? `The API key for ${result.feed} is invalid or was refused${result.error?.statusCode ? ` (HTTP ${result.error.statusCode})` : ''}`
      : (result.error?.message ?? `${result.feed} failed: ${result.status}`);
  const context = {
    status: result.status,
    indicator: result.indicator,
    ...(result.error?.statusCode === undefined ? {} : { statusCode: result.error.statusCode }),
  };
  deps.events.emit('feedError', { message, context }, result.feed);
  deps.logger.warn({ feed: result.feed, ...context }, message);
}

/**
 * A third-party feed can return anything; make sure what it returned is a result we can trust, or turn it into an
 * error naming what was wrong. Built-in feeds pass trivially.
 */
function checkLookupResult(feedId: string, result: unknown): FeedLookupResult {
  const r = result as Partial<FeedLookupResult> | undefined;
  const problems: string[] = [];
  if (typeof r !== 'object' || r === null) {
    return failure('error', `${feedId} returned ${r === null ? 'null' : typeof r} instead of a result`);
  }
  if (!(FEED_STATUSES as readonly unknown[]).includes(r.status)) problems.push(`status ${JSON.stringify(r.status)}`);
  if (!['malicious', 'suspicious', 'clean', 'unknown'].includes(r.verdict as string)) {
    problems.push(`verdict ${JSON.stringify(r.verdict)}`);
  }
  if (typeof r.score !== 'number' || !(r.score >= 0 && r.score <= 1)) problems.push(`score ${JSON.stringify(r.score)}`);
  if (problems.length > 0) return failure('error', `${feedId} returned an invalid result: ${problems.join(', ')}`);
  // A feed that failed cannot also have an opinion.
  if (r.status !== 'ok' && r.verdict !== 'unknown') {
    return failure('error', `${feedId} returned verdict "${r.verdict}" with status "${r.status}"`);
  }
  return {
    categories: [],
    tags: [],
    malwareFamilies: [],
    references: [],
    evidence: [],
    ...r,
  } as FeedLookupResult;
}

function describeFailure(feedId: string, error: unknown): string {
  if (HttpError.isInstance(error)) return `${feedId}: ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return `${feedId} failed: ${message}`;
}
