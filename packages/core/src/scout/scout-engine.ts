import type { ResolvedConfig } from '../config/schema.js';
import { type Correlation, correlateResults } from '../correlation/correlate.js';
import {
  DEFAULT_FEED_WEIGHT,
  DEFAULT_LIST_WEIGHT,
  DEFAULT_SOURCE_WEIGHTS,
  STRATEGY_THRESHOLDS,
  type Thresholds,
} from '../correlation/strategies.js';
import { ThreatlibError } from '../errors/threatlib-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { Feed, FeedLookupResult } from '../feeds/feed.js';
import { failure } from '../feeds/feed-response.js';
import type { FeedResult } from '../feeds/feed-result.js';
import { type Indicator, type IndicatorType, type IndicatorTypeName, parseIndicator } from '../indicators/index.js';
import { shownInput } from '../records/shown-input.js';
import { type Clock, MAX_TIMER_MS } from '../scheduler/clock.js';
import { isoTime } from '../scheduler/iso-time.js';
import { checkEndpoint } from '../security/endpoint-policy.js';
import { VaultLockedError } from '../vault/vault-locked-error.js';
import { KEY_ADDED_BY_PROXY } from './cors-proxy.js';
import type { FeedPipeline, LookupLimit } from './feed-pipeline.js';
import type { LookupFallback } from './lookup-fallback.js';
import { untilAborted } from './until-aborted.js';

/** A benign-list match that answers an indicator before any feed is asked. */
export interface WarninglistHit {
  /** The list's name. */
  list: string;
  /** The entry that matched (`8.8.8.8/32`, `google.com`). */
  entry: string;
  /** Human-readable reason, for evidence. */
  reason: string;
}

/**
 * What the engine needs of the warninglists: a match, or nothing. A match answers the indicator `clean` with no feed
 * asked (unless a local list flags it: the user's own entry wins), so it must cover every host the indicator names to any parser (`WarninglistSet` matches with
 * `IndicatorMatcher.matchEveryReading`).
 */
export interface Prefilter {
  match(indicator: Indicator): WarninglistHit | undefined;
}

/** A local list used as a source (`list:<name>`): answered in memory, no request. */
export interface LocalSource {
  readonly name: string;
  lookup(indicator: Indicator): FeedLookupResult;
  /** Stops what the list runs in the background (a MISP feed's polling); the client calls it on `stop()`. */
  close?(): Promise<void>;
}

/** Options of `client.scout`, `client.correlate` and `client.scoutMany`. */
export interface ScoutOptions {
  /**
   * Cancels the call: the promise rejects at once with the signal's reason, this call's requests are aborted and its
   * place in any queue given up (a request another call shares goes on for that call).
   */
  signal?: AbortSignal;
  /**
   * The call's time limit in ms (default `performance.lookupTimeout`): a feed that has not answered by then answers
   * `timeout`, or `rate_limited` with `error.retryAt` while it is paused or out of quota.
   */
  timeoutMs?: number;
  /** Include each feed's raw response body in its result. */
  includeRaw?: boolean;
  /**
   * Treat the input as this type instead of detecting it: a precise type, `ip` (IPv4 or IPv6, whichever it is) or
   * `hostname` (a domain). The result reports the precise type.
   */
  type?: IndicatorTypeName;
  /**
   * Latest time a feed request may be sent (epoch ms or a Date). A feed whose quota has no room by then answers
   * `rate_limited` naming the window instead of waiting. Default: `performance.maxQueueWait` from now, if set;
   * otherwise the end of the call's time limit (`timeoutMs`), which a later deadline does not extend.
   */
  deadline?: number | Date;
}

/** What every feed (and list) said about one indicator. */
export interface ScoutResult {
  /** The normalised indicator. */
  indicator: string;
  type: IndicatorType;
  /** One result per configured source, in `sources` order, then registered feeds, then local lists. */
  results: FeedResult[];
  /** ISO 8601. */
  startedAt: string;
  durationMs: number;
  /** Set when a warninglist answered and no feed was asked. */
  warninglist?: WarninglistHit;
  /**
   * Set when some results are not live answers (`browser.fallbackMode`, feeds unreachable): the mode, and the feeds
   * whose results are stored verdicts (`offline`) or demo data (`demo`), each marked with its `source`.
   */
  fallback?: { mode: 'offline' | 'demo'; feeds: string[] };
}

/** What the engine needs from the client. */
export interface ScoutEngineDeps {
  config: ResolvedConfig;
  pipeline: FeedPipeline;
  /** Ids of the sources to ask, in order, and the feed behind each. */
  sources: () => Feed[];
  /** Loads (once) and returns the warninglists and local lists. */
  prepared: () => Promise<{ prefilter: Prefilter; lists: LocalSource[] }>;
  /** The weight of a list added at run time (`list:<name>`), or undefined for other sources. */
  listWeight?: (feed: string) => number | undefined;
  /** The key of a feed, or undefined when none is configured; throws `VaultLockedError` when it is locked away. */
  keyFor: (feed: string) => Promise<string | undefined>;
  /**
   * Called with the feeds about to be asked, before any is: throws (a `VaultLockedError`) when a key one of them
   * needs cannot be had, so that a lookup fails whole rather than after some requests went out.
   */
  checkKeys?: (feeds: readonly Feed[]) => void;
  now: () => number;
  /** Timers of the calls' time limits. */
  clock: Clock;
  /** What a feed that cannot be reached answers (`browser.fallbackMode`); absent, its failure. */
  fallback?: LookupFallback | undefined;
  /** The CORS proxy adds the feeds' keys (`browser.proxy.addsKeys`): a feed is asked without its key. */
  keysAddedByProxy?: boolean;
}

/**
 * Asks every configured source about one indicator and correlates the answers. The client owns one engine; it
 * holds no state of its own, so concurrent scouts are independent.
 */
export class ScoutEngine {
  readonly #deps: ScoutEngineDeps;
  #listWeights: Map<string, number> | undefined;

  constructor(deps: ScoutEngineDeps) {
    this.#deps = deps;
  }

  /** Scouts and correlates; the caller decides which to return and whether to emit `threatFound`. */
  async run(input: string, options: ScoutOptions = {}): Promise<{ scout: ScoutResult; correlation: Correlation }> {
    options.signal?.throwIfAborted();
    const indicator = parseIndicator(input, options.type);
    const scout = await this.scout(indicator, options);
    return { scout, correlation: this.correlate(scout) };
  }

  async scout(indicator: Indicator, options: ScoutOptions): Promise<ScoutResult> {
    const startedAt = this.#deps.now();
    const started = performance.now();
    const limitMs = timeLimitOf(options, this.#deps.config);
    const { prefilter, lists } = await untilAborted(this.#deps.prepared(), options.signal);
    const finish = (results: FeedResult[], warninglist?: WarninglistHit): ScoutResult => {
      const result: ScoutResult = {
        indicator: indicator.value,
        type: indicator.type,
        results,
        startedAt: isoTime(startedAt),
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      };
      if (warninglist) result.warninglist = warninglist;
      const notLive = results.filter((r) => r.source !== undefined);
      if (notLive.length > 0) {
        result.fallback = {
          mode: notLive[0]?.source === 'demo' ? 'demo' : 'offline',
          feeds: notLive.map((r) => r.feed),
        };
      }
      return result;
    };

    // The local lists are in memory and cost a lookup each: they are asked first, so that an entry the user listed
    // themselves (an internal address on their own blocklist) is never cleared by a built-in warninglist.
    const listResults = lists.map((list): FeedResult => {
      const t = performance.now();
      const lookup = list.lookup(indicator);
      return {
        ...lookup,
        feed: `list:${list.name}`,
        indicator: indicator.value,
        type: indicator.type,
        durationMs: Math.round((performance.now() - t) * 1000) / 1000,
        cached: false,
      };
    });
    const hit = prefilter.match(indicator);
    if (hit && !listResults.some(flags)) {
      return finish(
        [
          {
            feed: `warninglist:${hit.list}`,
            indicator: indicator.value,
            type: indicator.type,
            status: 'ok',
            verdict: 'clean',
            score: 0,
            categories: [],
            tags: ['warninglist'],
            malwareFamilies: [],
            references: [],
            evidence: [hit.reason, 'no feed was asked'],
            durationMs: 0,
            cached: false,
          },
        ],
        hit,
      );
    }

    const sources = this.#deps.sources();
    this.#deps.checkKeys?.(sources.filter((feed) => feed.supportedTypes.includes(indicator.type)));
    // One timer for the whole call: when it fires, every feed still to answer answers `timeout` or `rate_limited`.
    const { clock } = this.#deps;
    const reached = new AbortController();
    const endsAt = startedAt + limitMs;
    const timer = clock.setTimeout(() => reached.abort(), endsAt - clock.now());
    const limit: LookupLimit = { endsAt, ms: limitMs, reached: reached.signal };
    try {
      const { fallback } = this.#deps;
      const pending = sources.map((feed) => {
        const asked = this.#ask(feed, indicator, options, limit);
        return fallback ? asked.then((result) => fallback.settle(feed, result)) : asked;
      });
      // Every lookup settles by itself (by the time limit at the latest); when one rejects (an abort, a locked vault)
      // the others' outcomes are nobody's to handle.
      for (const lookup of pending) lookup.catch(() => {});
      const feedResults = await Promise.all(pending);
      return finish([...feedResults, ...listResults]);
    } finally {
      clock.clearTimeout(timer);
    }
  }

  correlate(scout: ScoutResult): Correlation {
    const { config } = this.#deps;
    const thresholds = thresholdsOf(config);
    if (scout.warninglist) {
      const hit = scout.warninglist;
      return {
        indicator: scout.indicator,
        type: scout.type,
        confidence: 0,
        verdict: 'clean',
        isThreat: false,
        consensus: 0,
        sourcesQueried: 0,
        sourcesAnswered: 0,
        riskScore: 1,
        strategy: config.strategy,
        thresholds,
        contributions: scout.results.map((r) => ({
          feed: r.feed,
          status: r.status,
          verdict: r.verdict,
          counted: false,
          weight: 0,
          recency: 1,
          score: 0,
          contribution: 0,
          reason: hit.reason,
        })),
        failures: [],
        warninglist: hit,
      };
    }
    // The configuration does not change after the client is made: the list weights are worked out once.
    this.#listWeights ??= new Map(config.lists.map((l) => [`list:${l.name}`, l.weight ?? DEFAULT_LIST_WEIGHT]));
    const listWeights = this.#listWeights;
    return correlateResults({
      indicator: scout.indicator,
      type: scout.type,
      results: scout.results,
      strategy: config.strategy,
      thresholds,
      weightOf: (feed) =>
        config.correlation.weights[feed] ??
        listWeights.get(feed) ??
        this.#deps.listWeight?.(feed) ??
        DEFAULT_SOURCE_WEIGHTS[feed] ??
        DEFAULT_FEED_WEIGHT,
      recencyHalfLifeDays: config.correlation.recencyHalfLifeDays,
      now: this.#deps.now(),
    });
  }

  async #ask(feed: Feed, indicator: Indicator, options: ScoutOptions, limit: LookupLimit): Promise<FeedResult> {
    const { config } = this.#deps;
    const base = { feed: feed.id, indicator: indicator.value, type: indicator.type, durationMs: 0, cached: false };
    if (!feed.supportedTypes.includes(indicator.type)) {
      return { ...base, ...failure('unsupported', `${feed.id} does not look up ${indicator.type} indicators`) };
    }
    const entry = config.apiKeys[feed.id];
    let apiKey: string | undefined;
    try {
      apiKey = await this.#deps.keyFor(feed.id);
    } catch (error) {
      // A locked vault (locked since checkKeys passed) rejects the lookup: never send an empty key, never report
      // the feed as merely unconfigured when its key exists.
      if (VaultLockedError.isInstance(error)) throw error;
      if (ThreatlibError.isInstance(error)) {
        return { ...base, ...failure('not_configured', `${feed.id}: ${error.message}`) };
      }
      throw error;
    }
    // The proxy adds the key (`browser.proxy.addsKeys`): the feed asks with a stand-in the proxy request leaves out.
    if (apiKey === undefined && this.#deps.keysAddedByProxy) apiKey = KEY_ADDED_BY_PROXY;
    if (feed.requiresKey && apiKey === undefined) {
      return {
        ...base,
        ...failure('not_configured', `${feed.id} needs an API key (apiKeys.${feed.id}); it was not asked`),
      };
    }
    const objectEntry = typeof entry === 'object' ? entry : undefined;
    let endpoint: string;
    try {
      endpoint = checkEndpoint(
        objectEntry?.endpoint ?? feed.defaultEndpoint,
        `${feed.id} endpoint`,
        config.security,
      ).href;
    } catch (error) {
      return { ...base, ...failure('error', (error as Error).message) };
    }
    const {
      key: _key,
      endpoint: _endpoint,
      timeout: _timeout,
      rateLimit: _rateLimit,
      ...feedOptions
    } = objectEntry ?? {
      key: '',
    };
    const maxWait = config.performance.maxQueueWait;
    const asked =
      options.deadline !== undefined
        ? { at: new Date(options.deadline).getTime(), name: 'the deadline' }
        : maxWait === undefined
          ? undefined
          : { at: this.#deps.now() + maxWait, name: `the deadline (performance.maxQueueWait ${maxWait} ms)` };
    // A request sent after the call has ended would answer nobody: the time limit is the latest deadline.
    const deadline =
      asked && asked.at < limit.endsAt
        ? asked
        : { at: limit.endsAt, name: `the lookup's time limit of ${limit.ms} ms (performance.lookupTimeout)` };
    return this.#deps.pipeline.lookup(feed, indicator, {
      endpoint,
      options: feedOptions,
      timeoutMs: objectEntry?.timeout ?? config.performance.requestTimeout,
      includeRaw: options.includeRaw ?? false,
      apiKey,
      signal: options.signal,
      deadline: deadline.at,
      deadlineName: deadline.name,
      limit,
    });
  }
}

/** The time limit of one call: its `timeoutMs`, else `performance.lookupTimeout`. */
function timeLimitOf(options: ScoutOptions, config: ResolvedConfig): number {
  const { timeoutMs } = options;
  if (timeoutMs === undefined) return config.performance.lookupTimeout;
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || timeoutMs > MAX_TIMER_MS) {
    throw new ValidationError('scout options', [
      {
        path: 'timeoutMs',
        message: `expected a number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${shownInput(timeoutMs)}`,
      },
    ]);
  }
  return timeoutMs;
}

/** The thresholds a configuration's strategy implies. */
function thresholdsOf(config: ResolvedConfig): Thresholds {
  if (config.strategy === 'custom') {
    // The schema guarantees thresholds with the custom strategy.
    const t = config.thresholds as NonNullable<ResolvedConfig['thresholds']>;
    return { ...t };
  }
  return { ...STRATEGY_THRESHOLDS[config.strategy] };
}

/** Whether a local list's answer says the indicator is bad (a blocklist entry, not an allowlist one). */
function flags(result: FeedResult): boolean {
  return result.status === 'ok' && (result.verdict === 'malicious' || result.verdict === 'suspicious');
}
