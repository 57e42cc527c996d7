/** A cached value and when it stops being valid. */
export interface CacheEntry<T = unknown> {
  value: T;
  /** Epoch ms from which the entry is stale: it is valid while `now() < expiresAt`. */
  expiresAt: number;
}

/**
 * The contract of a cache back end (`memory`, `kvserver`, `file`, or a third party's). Values are JSON-compatible
 * and go through JSON in every back end, the memory one included, so a value reads back the same wherever it was
 * stored: a `Date` comes back as its ISO string, `undefined` properties are dropped, and the caller gets a fresh
 * copy it may change freely. Keys never contain a secret in clear (see `cacheKey`). Every back end runs core's
 * cache compliance suite.
 */
export interface CacheStore {
  /** Back end name, for status output. */
  readonly kind: string;
  /** The entry under `key`, or undefined when absent or expired. */
  get<T = unknown>(key: string): Promise<CacheEntry<T> | undefined>;
  /** Stores `value` under `key` for `ttlMs` milliseconds (a positive number). */
  set<T = unknown>(key: string, value: T, ttlMs: number): Promise<void>;
  /** Removes the entry under `key`; resolves to whether there was one. */
  delete(key: string): Promise<boolean>;
  /** Removes every entry of this store, and nothing that belongs to anyone else. */
  clear(): Promise<void>;
  /**
   * Opens connections or files and starts periodic work, so that a broken configuration fails at start rather than
   * at the first lookup. Optional: back ends that have it also open lazily on first use, without the periodic work.
   */
  start?(): Promise<void>;
  /** Called with the number of entries dropped whenever the store evicts to stay within its size. */
  onEvict?(listener: (count: number) => void): void;
  /** Releases timers and connections. The store refuses further use afterwards. */
  close(): Promise<void>;
}
