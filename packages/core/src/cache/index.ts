// The `@threatlib/core/cache` entry: the cache contract and core's three back ends, for those who make a cache apart
// from a client (one shared by several clients, passed as `ThreatClientOptions.cache`) or write their own back end.
// The file cache needs Node.js (it writes files); the kvserver cache needs the optional peer `redis`.
export type { CacheEntry, CacheStore } from './cache-store.js';
export { createCache } from './create-cache.js';
export { FileCache, type FileCacheOptions } from './file-cache.js';
export { KvServerCache, type KvServerCacheOptions } from './kvserver-cache.js';
export { MemoryCache, type MemoryCacheOptions } from './memory-cache.js';
