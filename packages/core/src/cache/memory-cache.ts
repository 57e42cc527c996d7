import { LRUCache } from 'lru-cache';
import { CacheError } from './cache-error.js';
import type { CacheEntry, CacheStore } from './cache-store.js';
import { EvictionListeners } from './eviction-listeners.js';
import { jsonCopy } from './json-copy.js';
import { checkTtl, isExpired } from './ttl.js';

/** Options of a {@link MemoryCache}. */
export interface MemoryCacheOptions {
  /** The most entries kept; the least recently used go first beyond it. Default 10,000. */
  maxSize?: number;
  /** The clock expiry is measured with, in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** The number of entries a {@link MemoryCache} keeps when `maxSize` is not given. */
export const DEFAULT_MEMORY_CACHE_SIZE = 10_000;

interface Slot {
  /** A JSON-shaped copy of the value; every read hands out another copy, so a caller cannot change the cache. */
  value: unknown;
  expiresAt: number;
}

/**
 * A cache in this process's memory, bounded by a number of entries and dropping the least recently used first
 * (`caching.type: 'memory'`). Expiry is checked on read against the injected clock; an expired entry still holds its
 * slot until it is read or pushed out, and pushing it out does not count as an eviction (it was worthless anyway).
 * `compression` does not apply: entries are small and compressing them would cost CPU on every lookup.
 *
 * @example
 * ```ts
 * const cache = new MemoryCache({ maxSize: 5000 });
 * cache.onEvict((count) => console.warn(`cache full: ${count} dropped`));
 * await cache.set('feed_otx:ipv4:…', result, 3_600_000);
 * ```
 */
export class MemoryCache implements CacheStore {
  readonly kind = 'memory';
  readonly #now: () => number;
  readonly #listeners = new EvictionListeners();
  readonly #lru: LRUCache<string, Slot>;
  /** Entries the LRU dropped for room during the current `set`, reported once it returns. */
  #evicted = 0;
  #closed = false;

  constructor(options: MemoryCacheOptions = {}) {
    const maxSize = options.maxSize ?? DEFAULT_MEMORY_CACHE_SIZE;
    if (!Number.isInteger(maxSize) || maxSize < 1) {
      throw new CacheError(`maxSize must be a whole number of entries (1 or more), got ${String(maxSize)}`, {
        backend: 'memory',
      });
    }
    this.#now = options.now ?? Date.now;
    this.#lru = new LRUCache<string, Slot>({
      max: maxSize,
      dispose: (slot, _key, reason) => {
        // Only room-making counts: explicit deletes, overwrites and expiry are not the cache being too small.
        if (reason === 'evict' && !isExpired(slot.expiresAt, this.#now())) this.#evicted += 1;
      },
    });
  }

  /** {@inheritDoc CacheStore.get} */
  async get<T = unknown>(key: string): Promise<CacheEntry<T> | undefined> {
    this.#assertOpen();
    const slot = this.#lru.get(key);
    if (!slot) return undefined;
    if (isExpired(slot.expiresAt, this.#now())) {
      this.#lru.delete(key);
      return undefined;
    }
    return { value: jsonCopy(slot.value, this.kind) as T, expiresAt: slot.expiresAt };
  }

  /** {@inheritDoc CacheStore.set} */
  async set<T = unknown>(key: string, value: T, ttlMs: number): Promise<void> {
    this.#assertOpen();
    const ttl = checkTtl(ttlMs, this.kind);
    const copied = jsonCopy(value, this.kind);
    if (copied === undefined) {
      throw new CacheError(`cannot cache ${typeof value}: values must be JSON (objects, arrays, strings, numbers...)`, {
        backend: this.kind,
      });
    }
    this.#evicted = 0;
    this.#lru.set(key, { value: copied, expiresAt: this.#now() + ttl });
    const evicted = this.#evicted;
    this.#evicted = 0;
    this.#listeners.emit(evicted);
  }

  /** {@inheritDoc CacheStore.delete} */
  async delete(key: string): Promise<boolean> {
    this.#assertOpen();
    return this.#lru.delete(key);
  }

  /** {@inheritDoc CacheStore.clear} */
  async clear(): Promise<void> {
    this.#assertOpen();
    this.#lru.clear();
  }

  /** Calls `listener` with the number of entries dropped each time a `set` pushes least recently used ones out. */
  onEvict(listener: (count: number) => void): void {
    this.#listeners.add(listener);
  }

  /** The number of entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.#lru.size;
  }

  /** Drops every entry; the cache refuses further use. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#lru.clear();
  }

  #assertOpen(): void {
    if (this.#closed) throw new CacheError('the memory cache is closed', { backend: this.kind });
  }
}
