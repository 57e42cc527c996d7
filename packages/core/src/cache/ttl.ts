import { CacheError } from './cache-error.js';

/**
 * `ttlMs` as a whole number of milliseconds (rounded up, so a TTL never shortens), or a `CacheError` when it is not
 * a positive finite number: a zero or negative TTL is a caller's bug that would otherwise store nothing, or store
 * forever in Redis.
 */
export function checkTtl(ttlMs: number, backend: string): number {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new CacheError(`ttlMs must be a positive number of milliseconds, got ${String(ttlMs)}`, { backend });
  }
  return Math.ceil(ttlMs);
}

/** Whether an entry that expires at `expiresAt` is stale at `now` (see `CacheEntry.expiresAt`). */
export function isExpired(expiresAt: number, now: number): boolean {
  return now >= expiresAt;
}
