import type { FeedResult } from '../feeds/feed-result.js';

/** Options of the retry policy, from `performance`. */
export interface RetryOptions {
  retryAttempts: number;
  retryDelay: number;
  backoffMultiplier: number;
}

/**
 * Whether a failed lookup is worth trying again: timeouts, server errors (5xx) and network faults, and 429 (once
 * its Retry-After has passed). A refused key (401/403), a missing record (404) or a malformed answer will fail the
 * same way again and is never retried.
 */
export function isRetryable(result: Pick<FeedResult, 'status' | 'error'>): boolean {
  if (result.status === 'timeout' || result.status === 'rate_limited') return true;
  if (result.status !== 'error') return false;
  const code = result.error?.statusCode;
  // No status code means the request never got an answer: a network fault.
  return code === undefined ? result.error?.network === true : code >= 500;
}

/**
 * How long to wait before retry number `attempt` (1 for the first retry): `retryDelay × backoffMultiplier^(attempt-1)`
 * with "equal jitter" (half fixed, half random) so that many clients failing together do not retry together.
 */
export function retryDelay(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const base = options.retryDelay * options.backoffMultiplier ** Math.max(0, attempt - 1);
  return Math.round(base / 2 + (random() * base) / 2);
}
