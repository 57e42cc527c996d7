import type { Feed, FeedLookupResult } from '../feeds/feed.js';
import { failure } from '../feeds/feed-response.js';
import { FEED_STATUSES } from '../feeds/feed-result.js';
import type { HttpClient, HttpResponse } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import type { Indicator } from '../indicators/index.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import { type CorsProxy, throughProxy } from './cors-proxy.js';
import { untilAborted } from './until-aborted.js';

/** One request to make: which feed, where, with which key and limits. */
export interface FeedRequest {
  feed: Feed;
  indicator: Indicator;
  endpoint: string;
  apiKey?: string | undefined;
  options: Readonly<Record<string, unknown>>;
  timeoutMs: number;
  /** The failure a timeout reports, when `timeoutMs` is not the feed's own (default: "did not answer within N ms"). */
  timeoutMessage?: string | undefined;
  includeRaw: boolean;
  signal?: AbortSignal | undefined;
}

/** What one request produced: the feed's answer, how long it took, and the rate-limit headers the feed sent. */
export interface FeedExecution {
  lookup: FeedLookupResult;
  durationMs: number;
  /** The response headers of the feed's last HTTP answer (lower-case names), for Retry-After and X-RateLimit-*. */
  headers: Record<string, string> | undefined;
}

/**
 * Makes one feed request within its timeout and turns whatever happens into a result: an exception, a timeout or a
 * malformed answer from a third-party feed becomes a failure status, never a clean verdict. Only the caller's own
 * abort escapes as an exception.
 */
export async function executeFeedRequest(
  request: FeedRequest,
  deps: { http: HttpClient; logger: Logger; clock: Clock; proxy?: CorsProxy | undefined },
): Promise<FeedExecution> {
  const { feed, indicator } = request;
  const started = performance.now();
  // One controller per request, its timer cleared as soon as the request ends: AbortSignal.timeout and
  // AbortSignal.any would keep every finished request's signal and timer alive until the timeout passes, which at
  // thousands of requests a second is most of the process's memory.
  const controller = new AbortController();
  let timedOut = false;
  const timeoutMessage = request.timeoutMessage ?? `${feed.id} did not answer within ${request.timeoutMs} ms`;
  // On the client's clock, as the lookup's time limit is: a test's manual clock decides when a request times out.
  const timer = deps.clock.setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(timeoutMessage));
  }, request.timeoutMs);
  const onCallerAbort = () => controller.abort(request.signal?.reason);
  request.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const signal = controller.signal;
  let headers: Record<string, string> | undefined;
  // Watch the feed's answers for rate-limit headers without asking every adapter to pass them on. Every feed request
  // goes through here: `browser.corsProxy` applies to all of them at once.
  const { proxy } = deps;
  const http: HttpClient = {
    async request(url, init) {
      const response: HttpResponse = await (proxy
        ? deps.http.request(...throughProxy(proxy, url, init))
        : deps.http.request(url, init));
      headers = response.headers;
      return response;
    },
    close: () => deps.http.close(),
  };
  let lookup: FeedLookupResult;
  try {
    const result = await untilAborted(
      // A third-party feed may answer synchronously.
      Promise.resolve(
        feed.lookup(indicator, {
          signal,
          endpoint: request.endpoint.replace(/\/+$/, ''),
          http,
          options: request.options,
          includeRaw: request.includeRaw,
          logger: deps.logger,
          ...(request.apiKey === undefined ? {} : { apiKey: request.apiKey }),
        }),
      ),
      signal,
    );
    lookup = checkLookupResult(feed.id, result);
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    if (timedOut) {
      lookup = failure('timeout', timeoutMessage);
    } else {
      const network = HttpError.isInstance(error) && error.kind === 'network';
      lookup = failure('error', describeFailure(feed.id, error), network ? { network: true } : {});
    }
  } finally {
    deps.clock.clearTimeout(timer);
    request.signal?.removeEventListener('abort', onCallerAbort);
  }
  return { lookup, durationMs: Math.round((performance.now() - started) * 100) / 100, headers };
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
