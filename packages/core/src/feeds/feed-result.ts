import type { IndicatorType } from '../indicators/index.js';

/** How a feed's lookup ended. Only `ok` and `not_found` are answers; every other status is a failure to answer. */
export const FEED_STATUSES = [
  'ok',
  'not_found',
  'unsupported',
  'not_configured',
  'auth_error',
  'rate_limited',
  'timeout',
  'circuit_open',
  'error',
] as const;

/** How a feed's lookup ended. */
export type FeedStatus = (typeof FEED_STATUSES)[number];

/** What a feed concluded about an indicator. `unknown` whenever it did not answer. */
export type FeedVerdict = 'malicious' | 'suspicious' | 'clean' | 'unknown';

/** One feed's normalised answer about one indicator. */
export interface FeedResult {
  /** Feed id (`feed_otx`, `list:ipsum`). */
  feed: string;
  /** The normalised indicator. */
  indicator: string;
  type: IndicatorType;
  status: FeedStatus;
  verdict: FeedVerdict;
  /** 0..1, how malicious the feed thinks it is (0 when it did not answer). */
  score: number;
  categories: string[];
  tags: string[];
  malwareFamilies: string[];
  /** ISO 8601. */
  firstSeen?: string;
  /** ISO 8601. */
  lastSeen?: string;
  /** Links a person can follow to check the answer. */
  references: string[];
  /** Short human-readable reasons for the verdict, or for the failure. */
  evidence: string[];
  durationMs: number;
  /** Whether the answer came from the cache. */
  cached: boolean;
  /**
   * Set when this is not the feed's live answer (`browser.fallbackMode`, when the feed could not be reached):
   * `stored`, a verdict it gave earlier (see `lookedUpAt`), or `demo`, from the bundled demo data set.
   */
  source?: 'stored' | 'demo';
  /** With `source: 'stored'`: when the feed gave this answer (ISO 8601). */
  lookedUpAt?: string;
  /** The feed's response body, only when the caller asked for raw output. */
  raw?: unknown;
  /** For failures: what went wrong (never a key). */
  error?: {
    message: string;
    statusCode?: number;
    /** How long the feed asked us to wait (Retry-After), in ms. */
    retryAfterMs?: number;
    /**
     * With `rate_limited`: when the feed takes requests again (ISO 8601), from its Retry-After or the quota window
     * that held the request back. Absent when the feed did not say.
     */
    retryAt?: string;
    /** The request got no answer at all (connection refused, reset, DNS). */
    network?: boolean;
  };
}
