/** A cached value and when it stops being valid. */
export interface CacheEntry<T = unknown> {
  value: T;
  /** Epoch ms after which the entry is stale. */
  expiresAt: number;
}

/**
 * The contract of a cache back end (`memory`, `kvserver`, `file`, or a third party's). Values are JSON-compatible;
 * keys never contain a secret in clear. Every back end runs core's cache compliance suite.
 */
export interface CacheStore {
  /** Back end name, for status output. */
  readonly kind: string;
  /** The entry under `key`, or undefined when absent or expired. */
  get<T = unknown>(key: string): Promise<CacheEntry<T> | undefined>;
  /** Stores `value` under `key` for `ttlMs` milliseconds. */
  set<T = unknown>(key: string, value: T, ttlMs: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  clear(): Promise<void>;
  /** Called with the number of entries dropped whenever the store evicts to stay within its size. */
  onEvict?(listener: (count: number) => void): void;
  /** Releases timers and connections. */
  close(): Promise<void>;
}
