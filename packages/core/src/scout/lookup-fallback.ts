import { cacheKey } from '../cache/cache-key.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Feed } from '../feeds/feed.js';
import type { FeedResult, FeedStatus } from '../feeds/feed-result.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import { isoTime } from '../scheduler/iso-time.js';
import { DEMO_DATA } from './demo-data.js';

/** The failures that mean a feed could not be reached: what `offline` and `demo` answer instead of. */
const UNREACHED: ReadonlySet<FeedStatus> = new Set(['error', 'timeout', 'circuit_open']);

/** A feed's answer kept for `offline`: what it said, and when. */
interface StoredVerdict {
  lookedUpAt: string;
  result: Omit<FeedResult, 'feed' | 'indicator' | 'type' | 'durationMs' | 'cached' | 'raw' | 'error'>;
}

/** What {@link LookupFallback} needs of the client. */
interface LookupFallbackDeps {
  browser: Pick<ResolvedConfig['browser'], 'fallbackMode' | 'offlineRetention'>;
  /** Where `offline` keeps verdicts: the client's cache (browser storage in a page). */
  cache: CacheStore | undefined;
  clock: Clock;
  logger: Logger;
}

/**
 * `browser.fallbackMode`: what a lookup answers when a feed cannot be reached (`error`, `timeout`, `circuit_open`).
 * `error` leaves the failure as it is. `offline` keeps every live answer (in the cache, for `offlineRetention`) and
 * answers a failed feed with the verdict it last gave, marked `source: 'stored'` with `lookedUpAt`; with none kept,
 * the failure stays, saying so. `demo` answers from the bundled demo data set (a feed without a key too), marked
 * `source: 'demo'`; an indicator the set does not hold keeps its failure. Neither is ever a live answer, and a
 * failure is never turned into `clean`.
 */
export class LookupFallback {
  readonly #deps: LookupFallbackDeps;

  constructor(deps: LookupFallbackDeps) {
    this.#deps = deps;
  }

  /** Whether a feed without its API key is asked anyway (`demo` answers for it). */
  get answersUnconfigured(): boolean {
    return this.#deps.browser.fallbackMode === 'demo';
  }

  /** `result` as the lookup returns it: kept when it is a live answer, replaced when the feed could not answer. */
  async settle(feed: Feed, result: FeedResult): Promise<FeedResult> {
    const mode = this.#deps.browser.fallbackMode;
    if (mode === 'offline') {
      if ((result.status === 'ok' || result.status === 'not_found') && !result.cached) await this.#keep(result);
      if (UNREACHED.has(result.status)) return this.#stored(result);
    }
    if (mode === 'demo' && (UNREACHED.has(result.status) || result.status === 'not_configured')) {
      return demoAnswer(feed, result);
    }
    return result;
  }

  async #keep(result: FeedResult): Promise<void> {
    const { cache, clock, browser, logger } = this.#deps;
    if (!cache) return;
    const { feed: _f, indicator: _i, type: _t, durationMs: _d, cached: _c, raw: _r, error: _e, ...kept } = result;
    const stored: StoredVerdict = { lookedUpAt: isoTime(clock.now()), result: kept };
    try {
      await cache.set(storedKey(result), stored, browser.offlineRetention);
    } catch (error) {
      logger.warn({ category: 'cache', err: error }, 'could not keep the verdict for offline use');
    }
  }

  async #stored(failed: FeedResult): Promise<FeedResult> {
    const { cache, logger } = this.#deps;
    let stored: StoredVerdict | undefined;
    try {
      stored = (await cache?.get<StoredVerdict>(storedKey(failed)))?.value;
    } catch (error) {
      logger.warn({ category: 'cache', err: error }, 'could not read the stored verdict');
    }
    if (!stored) {
      return noted(failed, `offline (browser.fallbackMode): no stored verdict of ${failed.feed} for this indicator`);
    }
    const { feed, indicator, type } = failed;
    const reason = failed.error?.message ?? failed.status;
    return {
      ...stored.result,
      feed,
      indicator,
      type,
      durationMs: 0,
      cached: true,
      source: 'stored',
      lookedUpAt: stored.lookedUpAt,
      evidence: [
        `stored verdict of ${feed} from ${stored.lookedUpAt}, not a live answer (offline: ${reason})`,
        ...stored.result.evidence,
      ],
    };
  }
}

/** Where `offline` keeps a feed's verdict about an indicator (never the indicator in clear: see `cacheKey`). */
function storedKey(result: FeedResult): string {
  return cacheKey({ feed: result.feed, type: result.type, value: result.indicator, fingerprint: 'stored-verdict' });
}

function demoAnswer(feed: Feed, failed: FeedResult): FeedResult {
  const entry = Object.hasOwn(DEMO_DATA, failed.indicator) ? DEMO_DATA[failed.indicator] : undefined;
  if (!entry || !feed.supportedTypes.includes(failed.type)) {
    return noted(
      failed,
      `demo (browser.fallbackMode): the demo data set has no answer for this indicator (it holds ${Object.keys(DEMO_DATA).slice(0, 5).join(', ')}...)`,
    );
  }
  const { error: _error, ...rest } = failed;
  return {
    ...rest,
    status: 'ok',
    verdict: entry.verdict,
    score: entry.score,
    categories: [...entry.categories],
    tags: ['demo'],
    malwareFamilies: [...entry.malwareFamilies],
    references: [],
    evidence: [`demo data, not a live answer of ${feed.id} (browser.fallbackMode: demo)`],
    durationMs: 0,
    cached: false,
    source: 'demo',
  };
}

/** `result` with `note` added to its reason. */
function noted(result: FeedResult, note: string): FeedResult {
  const message = `${result.error?.message ?? result.evidence[0] ?? result.status}; ${note}`;
  return { ...result, evidence: [message, ...result.evidence.slice(1)], error: { ...(result.error ?? {}), message } };
}
