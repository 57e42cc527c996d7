import type { CacheStore } from './cache-store.js';
import { FileCache, type FileCacheOptions } from './file-cache.js';
import { KvServerCache, type KvServerCacheOptions } from './kvserver-cache.js';

/*
 * The cache back ends that need Node.js (chosen by package.json `imports`, `#cache-backends`, condition `default`):
 * a directory on disk, a TCP connection to a Redis server. `backends.browser.ts` is the page's side.
 */

/** `caching.type: 'file'`: a {@link FileCache}. */
export function fileCache(options: FileCacheOptions): CacheStore {
  return new FileCache(options);
}

/** `caching.type: 'kvserver'`: a {@link KvServerCache}. */
export function kvServerCache(options: KvServerCacheOptions): CacheStore {
  return new KvServerCache(options);
}
