import type { HttpClient } from '../http/http-client.js';
import type { Indicator, IndicatorType } from '../indicators/index.js';
import type { Logger } from '../logging/logger.js';
import type { FeedResult } from './feed-result.js';

/** What a feed's `lookup` is given besides the indicator. */
export interface FeedLookupContext {
  /** Aborted when the caller gives up or the request times out; pass it to every request. */
  signal: AbortSignal;
  /** The API key, when the feed has one configured. Never log it. */
  apiKey?: string;
  /** Base URL to use: `apiKeys[feed].endpoint` or the feed's default. */
  endpoint: string;
  /** The client's pooled HTTP client. */
  http: HttpClient;
  /** Per-feed options from `apiKeys[feed]` (such as AbuseIPDB `categories`). */
  options: Readonly<Record<string, unknown>>;
  /** Include the feed's raw response body in the result. */
  includeRaw: boolean;
  logger: Logger;
}

/** What a lookup returns: a result without the fields the client fills in itself. */
export type FeedLookupResult = Omit<FeedResult, 'feed' | 'indicator' | 'type' | 'durationMs' | 'cached'>;

/**
 * The contract every threat feed implements, built-in or third-party. A feed asks its source about exactly one
 * indicator and reports a normalised answer; a failure is reported as a status, never as a clean verdict.
 *
 * @example
 * ```ts
 * const myFeed: Feed = {
 *   specificationVersion: 'v1', id: 'feed_mine', name: 'My feed', supportedTypes: ['ipv4'],
 *   requiresKey: false, defaultEndpoint: 'https://intel.example.com',
 *   async lookup(indicator, ctx) { ... },
 * };
 * client.registerFeed(myFeed);
 * ```
 */
export interface Feed {
  readonly specificationVersion: 'v1';
  /** Stable identifier used in `sources`, `apiKeys` and results. */
  readonly id: string;
  /** Human-readable name. */
  readonly name: string;
  readonly supportedTypes: readonly IndicatorType[];
  /** Whether the feed cannot be asked without an API key. */
  readonly requiresKey: boolean;
  /** Base URL used when `apiKeys[id].endpoint` is not set. */
  readonly defaultEndpoint: string;
  lookup(indicator: Indicator, context: FeedLookupContext): Promise<FeedLookupResult>;
}
