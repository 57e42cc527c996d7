import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import type { CacheStore } from './cache-store.js';
import type { FileCacheOptions } from './file-cache.js';
import type { KvServerCacheOptions } from './kvserver-cache.js';

/*
 * The cache back ends in a page (chosen by package.json `imports`, `#cache-backends`, condition `browser`): a page has
 * no directory and no socket, so `caching.type` "file" and "kvserver" are refused with a RuntimeUnsupportedError when
 * the client is made, never at import. A page keeps verdicts with `storage` (IndexedDB, localStorage) or in memory.
 */

const INSTEAD =
  'in a page, keep verdicts with storage: {type: "indexeddb"} (or "localstorage"), which survives a reload, or use caching.type "memory"';

/** Refused: `caching.type: 'file'` needs a file system. */
export function fileCache(_options: FileCacheOptions): CacheStore {
  throw new RuntimeUnsupportedError(
    'caching.type file',
    `caching.type "file" is not available in the browser: it needs Node.js (a directory on disk); ${INSTEAD}`,
  );
}

/** Refused: `caching.type: 'kvserver'` needs a TCP connection. */
export function kvServerCache(_options: KvServerCacheOptions): CacheStore {
  throw new RuntimeUnsupportedError(
    'caching.type kvserver',
    `caching.type "kvserver" is not available in the browser: it needs Node.js (a TCP connection to Redis); ${INSTEAD}`,
  );
}
