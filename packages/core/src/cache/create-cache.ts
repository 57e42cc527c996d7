import { fileCache, kvServerCache } from '#cache-backends';
import type { ResolvedConfig } from '../config/schema.js';
import type { CacheStore } from './cache-store.js';
import { MemoryCache } from './memory-cache.js';

/** Options of {@link createCache} that are not part of the configuration. */
export interface CreateCacheOptions {
  /** The clock every back end measures expiry with, in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * The cache back end `caching` asks for, or undefined when caching is off. Does no I/O: the file cache opens its
 * directory and the kvserver cache connects on `start()` or first use, so creating a client stays free of side
 * effects. For the file cache, a size string in `caching.maxSize` takes precedence over `caching.filesystem.maxSize`
 * (which always has a default, so only the explicit top-level option can be told apart from it). The file and kvserver
 * back ends need Node.js: in a page they are refused (package.json `imports`, `#cache-backends`).
 *
 * @example
 * ```ts
 * const cache = createCache(config.caching);
 * await cache?.start?.();
 * ```
 *
 * @throws {RuntimeUnsupportedError} in a page, for `caching.type` "file" or "kvserver".
 */
export function createCache(
  caching: ResolvedConfig['caching'],
  options: CreateCacheOptions = {},
): CacheStore | undefined {
  if (!caching.enabled) return undefined;
  const { now } = options;
  switch (caching.type) {
    case 'memory':
      return new MemoryCache({ maxSize: typeof caching.maxSize === 'number' ? caching.maxSize : undefined, now });
    case 'kvserver':
      return kvServerCache({ ...caching.kvserver, compression: caching.compression, now });
    case 'file':
      return fileCache({
        directory: caching.filesystem.directory,
        maxSize: typeof caching.maxSize === 'string' ? caching.maxSize : caching.filesystem.maxSize,
        cleanupInterval: caching.filesystem.cleanupInterval,
        compression: caching.compression,
        now,
      });
  }
}
