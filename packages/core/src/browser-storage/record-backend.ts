/** The object stores (IndexedDB) or key spaces (`localStorage`) browser storage keeps. */
export type StoreName = 'cache' | 'alerts' | 'meta';

/** Every {@link StoreName}: what a database of the current schema holds. */
export const STORE_NAMES: readonly StoreName[] = ['cache', 'alerts', 'meta'];

/**
 * Text records under text keys, in named stores: the one thing the cache and the alert store ask of IndexedDB,
 * `localStorage` or memory. Keys and values arrive already hashed and sealed when the storage is encrypted.
 */
export interface RecordBackend {
  get(store: StoreName, key: string): Promise<string | undefined>;
  put(store: StoreName, key: string, value: string): Promise<void>;
  /**
   * Stores `value` under `key` unless a record is there already, as one step that no other connection or store of
   * this page can interleave with; resolves to the record stored now: `value`, or the one found.
   */
  addIfAbsent(store: StoreName, key: string, value: string): Promise<string>;
  /** Resolves to whether there was a record. */
  delete(store: StoreName, key: string): Promise<boolean>;
  clear(store: StoreName): Promise<void>;
  /** Every record of `store`, in no particular order. */
  entries(store: StoreName): Promise<Array<[key: string, value: string]>>;
  close(): Promise<void>;
}
