import { sha256Hex } from './sha256.js';
import { stableJson } from './stable-json.js';

/** What identifies one feed's answer about one indicator. */
export interface CacheKeyParts {
  /** Feed id (`feed_otx`, `list:ipsum`). */
  feed: string;
  /** Indicator type (`ipv4`, `url`...). */
  type: string;
  /** The normalised indicator. */
  value: string;
  /** What else changes the answer, from {@link fingerprint}. */
  fingerprint: string;
}

/**
 * The cache key of one feed's answer about one indicator: `feed:type:<sha256 hex of "value|fingerprint">`. The feed
 * and type stay readable so an operator can see (and clear) one feed's entries in Redis or on disk; the indicator
 * is hashed because it can be long or hold anything (a URL with credentials in its query). The fingerprint is 64 hex
 * digits without `|`, so splitting at the last `|` is unambiguous and two inputs never share a digest input.
 *
 * @example
 * ```ts
 * cacheKey({ feed: 'feed_otx', type: 'ipv4', value: '198.51.100.7', fingerprint: fingerprint([{}, sha256Hex(key)]) });
 * // 'feed_otx:ipv4:5c1f…'
 * ```
 */
export function cacheKey(parts: CacheKeyParts): string {
  return `${parts.feed}:${parts.type}:${sha256Hex(`${parts.value}|${parts.fingerprint}`)}`;
}

/**
 * A digest (64 hex digits) of everything besides the indicator that changes a feed's answer: its options (endpoint,
 * categories...) and its API key, so a new key or new options never read an answer cached for the old ones. The
 * parts are serialised with sorted object keys (key order does not matter, array order does) and the whole is
 * hashed with SHA-256, so the result never holds an API key or option in clear. API keys are long random strings,
 * which is what makes an unsalted hash of them safe to store; pass `sha256Hex(apiKey)` rather than the key itself
 * so that not even the hash input ever holds the key.
 *
 * @example
 * ```ts
 * fingerprint([{ endpoint: 'https://otx.alienvault.com', categories: [14, 18] }, sha256Hex(apiKey)]);
 * ```
 */
export function fingerprint(parts: readonly unknown[]): string {
  return sha256Hex(stableJson(parts));
}
