// The cache of feed answers: the key an answer is kept under (whatever changes it, never the API key itself), and
// reading and writing it so that a cache outage costs requests, never answers.

import { cacheKey, fingerprint } from '../cache/cache-key.js';
import { sha256Hex } from '../cache/sha256.js';
import type { FeedLookupResult } from '../feeds/feed.js';
import type { FeedResult } from '../feeds/feed-result.js';
import type { Indicator } from '../indicators/index.js';
import type { FeedPipelineDeps } from './feed-pipeline.js';
import type { FeedRequest } from './feed-runner.js';

/** The key `feed`'s answer about `indicator` is cached under, for a request made with `request`. */
export function answerKey(
  feed: string,
  indicator: Indicator,
  request: Pick<FeedRequest, 'endpoint' | 'options' | 'apiKey' | 'includeRaw'>,
): string {
  return cacheKey({
    feed,
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
}

/** The answer cached under `key`; undefined when there is none, no cache, or the cache failed (logged). */
export async function cachedAnswer(
  deps: Pick<FeedPipelineDeps, 'cache' | 'logger'>,
  key: string,
): Promise<FeedLookupResult | undefined> {
  const cache = deps.cache;
  if (!cache) return undefined;
  try {
    return (await cache.get<FeedLookupResult>(key))?.value;
  } catch (error) {
    // A cache outage costs requests, never answers.
    deps.logger.warn({ category: 'cache', err: error }, 'cache read failed; asking the feed');
    return undefined;
  }
}

/**
 * Caches `result` under `key`, for `caching.ttl` when it is malicious or suspicious and `caching.negativeTtl`
 * otherwise; a cache that fails is logged, never thrown.
 */
export async function cacheAnswer(
  deps: Pick<FeedPipelineDeps, 'cache' | 'config' | 'logger'>,
  key: string,
  result: FeedResult,
): Promise<void> {
  const cache = deps.cache;
  if (!cache) return;
  const { caching } = deps.config;
  const ttl = result.verdict === 'malicious' || result.verdict === 'suspicious' ? caching.ttl : caching.negativeTtl;
  const { feed: _f, indicator: _i, type: _t, cached: _c, durationMs: _d, ...value } = result;
  try {
    await cache.set(key, value, ttl);
  } catch (error) {
    deps.logger.warn({ category: 'cache', err: error }, 'cache write failed; the answer is returned uncached');
  }
}
