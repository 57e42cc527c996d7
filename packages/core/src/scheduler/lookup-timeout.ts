import { MAX_TIMER_MS } from './clock.js';

/** The most a lookup's default time limit allows (10 minutes), unless one request may take longer. */
const LOOKUP_TIMEOUT_CAP_MS = 600_000;

/** The `performance` options the default time limit of a lookup is derived from. */
export interface LookupTimeoutBasis {
  requestTimeout: number;
  retryAttempts: number;
  retryDelay: number;
  backoffMultiplier: number;
}

/**
 * The time limit of one lookup when `performance.lookupTimeout` is not given: every attempt given its whole
 * `requestTimeout`, plus the longest wait before each retry (`retryDelay × backoffMultiplier^(n−1)`, the top of its
 * jitter), at most 10 minutes, or one `requestTimeout` when that alone is longer.
 *
 * @example
 * ```ts
 * defaultLookupTimeout({ requestTimeout: 30_000, retryAttempts: 3, retryDelay: 1000, backoffMultiplier: 2 });
 * // 4 × 30000 + (1000 + 2000 + 4000) = 127000
 * ```
 */
export function defaultLookupTimeout(performance: LookupTimeoutBasis): number {
  const { requestTimeout, retryAttempts, retryDelay, backoffMultiplier } = performance;
  let backoff = 0;
  for (let n = 1; n <= retryAttempts; n++) backoff += retryDelay * backoffMultiplier ** (n - 1);
  const derived = (retryAttempts + 1) * requestTimeout + backoff;
  return Math.min(MAX_TIMER_MS, Math.round(Math.min(derived, Math.max(LOOKUP_TIMEOUT_CAP_MS, requestTimeout))));
}
