import { BrowserStorageError } from './browser-storage-error.js';
import type { RecordBackend, StoreName } from './record-backend.js';

/** What this module uses of the Web Storage API (core's types are Node.js's, which have none). */
interface WebStorage {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * Records in `localStorage` (`type: 'localstorage'`), each under `<dbName>/<store>/<key>`, so several databases and
 * other scripts' keys share it without touching each other. The schema version is kept under `<dbName>#version`.
 * `localStorage` holds about 5 MiB an origin: a write beyond that fails with a {@link BrowserStorageError}.
 */
export class LocalStorageBackend implements RecordBackend {
  readonly #storage: WebStorage;
  readonly #dbName: string;

  private constructor(storage: WebStorage, dbName: string) {
    this.#storage = storage;
    this.#dbName = dbName;
  }

  /**
   * Opens `dbName` at `version`: a newer version is recorded (nothing to migrate yet: every store of the schema is a
   * key prefix), an older one than stored is refused, as IndexedDB refuses it.
   *
   * @throws {BrowserStorageError} without `localStorage`, or when the stored version is higher.
   */
  static open(dbName: string, version: number): LocalStorageBackend {
    const storage = (globalThis as { localStorage?: WebStorage }).localStorage;
    if (!storage) {
      throw new BrowserStorageError('localstorage', dbName, 'storage type localstorage needs a page with localStorage');
    }
    const versionKey = `${dbName}#version`;
    const stored = Number(storage.getItem(versionKey) ?? '0');
    if (stored > version) {
      throw new BrowserStorageError(
        'localstorage',
        dbName,
        `localStorage database ${dbName} is at version ${stored}, newer than the version ${version} asked for: ` +
          'a newer release of the page wrote it; open it with that version or higher',
      );
    }
    if (stored < version) storage.setItem(versionKey, String(version));
    return new LocalStorageBackend(storage, dbName);
  }

  #prefix(store: StoreName): string {
    return `${this.#dbName}/${store}/`;
  }

  async get(store: StoreName, key: string): Promise<string | undefined> {
    return this.#storage.getItem(this.#prefix(store) + key) ?? undefined;
  }

  async put(store: StoreName, key: string, value: string): Promise<void> {
    try {
      this.#storage.setItem(this.#prefix(store) + key, value);
    } catch (error) {
      throw new BrowserStorageError(
        'localstorage',
        this.#dbName,
        `localStorage refused a ${value.length}-character record for ${this.#dbName}/${store} (its quota is about 5 MiB an origin): ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  async addIfAbsent(store: StoreName, key: string, value: string): Promise<string> {
    // One synchronous read and write: nothing of this page runs between them.
    const found = this.#storage.getItem(this.#prefix(store) + key);
    if (found !== null) return found;
    await this.put(store, key, value);
    return value;
  }

  async delete(store: StoreName, key: string): Promise<boolean> {
    const full = this.#prefix(store) + key;
    const had = this.#storage.getItem(full) !== null;
    this.#storage.removeItem(full);
    return had;
  }

  async clear(store: StoreName): Promise<void> {
    for (const key of this.#keys(store)) this.#storage.removeItem(key);
  }

  async entries(store: StoreName): Promise<Array<[string, string]>> {
    const prefix = this.#prefix(store);
    const out: Array<[string, string]> = [];
    for (const key of this.#keys(store)) {
      const value = this.#storage.getItem(key);
      if (value !== null) out.push([key.slice(prefix.length), value]);
    }
    return out;
  }

  async close(): Promise<void> {}

  /** The full `localStorage` keys of `store`, collected before any is removed (removal renumbers them). */
  #keys(store: StoreName): string[] {
    const prefix = this.#prefix(store);
    const keys: string[] = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      if (key?.startsWith(prefix)) keys.push(key);
    }
    return keys;
  }
}
