import { CacheError } from '../cache/cache-error.js';
import type { CacheEntry, CacheStore } from '../cache/cache-store.js';
import { checkTtl, isExpired } from '../cache/ttl.js';
import type { BrowserStorageOptions } from './browser-storage-options.js';
import { openRecordStorage, type RecordStorage } from './open-record-storage.js';

/** Options of a {@link BrowserCache}: the storage's, and the clock. */
export interface BrowserCacheOptions extends BrowserStorageOptions {
  /** The clock expiry is measured with, in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * A cache in the page's storage (`indexeddb`, `localstorage` or `memory`): verdicts survive a reload, and with
 * `encryptionKey` neither the cache key (which holds the indicator) nor the value is readable in storage (see
 * `encryptedSealer`). Values go through JSON, as in every cache back end. An entry that does not decrypt reads as a
 * miss and is removed. It opens on first use, or at `start()`; `close()` closes its database connection.
 *
 * @example
 * ```ts
 * const cache = new BrowserCache({ type: 'indexeddb', dbName: 'threatlib', version: 1, encryptionKey });
 * await cache.start();
 * ```
 */
export class BrowserCache implements CacheStore {
  readonly kind: string;
  readonly #options: BrowserCacheOptions;
  readonly #now: () => number;
  #opening: Promise<RecordStorage> | undefined;
  #closed = false;

  constructor(options: BrowserCacheOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.kind = options.type ?? 'indexeddb';
  }

  /** Opens the database now, so that a wrong `encryptionKey` or a missing IndexedDB fails here. */
  async start(): Promise<void> {
    await this.#storage();
  }

  /** {@inheritDoc CacheStore.get} */
  async get<T = unknown>(key: string): Promise<CacheEntry<T> | undefined> {
    const { backend, sealer } = await this.#storage();
    const stored = await sealer.storedKey('cache', key);
    const value = await this.#guard(() => backend.get('cache', stored));
    if (value === undefined) return undefined;
    const text = await sealer.open('cache', stored, value);
    const entry = text === undefined ? undefined : parseEntry(text, key);
    if (!entry || isExpired(entry.expiresAt, this.#now())) {
      await this.#guard(() => backend.delete('cache', stored));
      return undefined;
    }
    return { value: entry.value as T, expiresAt: entry.expiresAt };
  }

  /** {@inheritDoc CacheStore.set} */
  async set<T = unknown>(key: string, value: T, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs, this.kind);
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      throw new CacheError(`cannot cache a value that is not JSON: ${(error as Error).message}`, {
        backend: this.kind,
        cause: error,
      });
    }
    if (json === undefined) {
      throw new CacheError(`cannot cache ${typeof value}: values must be JSON (objects, arrays, strings, numbers...)`, {
        backend: this.kind,
      });
    }
    const { backend, sealer } = await this.#storage();
    const stored = await sealer.storedKey('cache', key);
    // The key goes inside the sealed value too: a record found under another key's hash reads as a miss.
    const text = `{"expiresAt":${this.#now() + ttl},"key":${JSON.stringify(key)},"value":${json}}`;
    const sealed = await sealer.seal('cache', stored, text);
    await this.#guard(() => backend.put('cache', stored, sealed));
  }

  /** {@inheritDoc CacheStore.delete} */
  async delete(key: string): Promise<boolean> {
    const { backend, sealer } = await this.#storage();
    const stored = await sealer.storedKey('cache', key);
    return this.#guard(() => backend.delete('cache', stored));
  }

  /** {@inheritDoc CacheStore.clear} */
  async clear(): Promise<void> {
    const { backend } = await this.#storage();
    await this.#guard(() => backend.clear('cache'));
  }

  /** Closes the database connection; the cache refuses further use. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const opening = this.#opening;
    this.#opening = undefined;
    if (opening) await (await opening.catch(() => undefined))?.backend.close();
  }

  #storage(): Promise<RecordStorage> {
    if (this.#closed) return Promise.reject(new CacheError(`the ${this.kind} cache is closed`, { backend: this.kind }));
    if (!this.#opening) {
      this.#opening = openRecordStorage(this.#options);
      // A failed open is tried again on the next call rather than remembered.
      this.#opening.catch(() => {
        this.#opening = undefined;
      });
    }
    return this.#opening.catch((error: unknown) => {
      throw new CacheError(`the ${this.kind} cache cannot open: ${(error as Error).message}`, {
        backend: this.kind,
        cause: error,
      });
    });
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new CacheError(`the ${this.kind} cache failed: ${(error as Error).message}`, {
        backend: this.kind,
        cause: error,
      });
    }
  }
}

function parseEntry(text: string, key: string): { expiresAt: number; value: unknown } | undefined {
  try {
    const parsed = JSON.parse(text) as { expiresAt?: unknown; key?: unknown; value?: unknown };
    if (typeof parsed.expiresAt !== 'number' || parsed.key !== key || !('value' in parsed)) return undefined;
    return { expiresAt: parsed.expiresAt, value: parsed.value };
  } catch {
    return undefined;
  }
}
