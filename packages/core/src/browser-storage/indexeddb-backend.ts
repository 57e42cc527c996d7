import { BrowserStorageError } from './browser-storage-error.js';
import { type RecordBackend, STORE_NAMES, type StoreName } from './record-backend.js';

// `idb` (a small, well-kept wrapper by the Chrome team) turns IndexedDB's request events into promises. It is
// imported on first use, so a page that stores in memory or localStorage never loads it.
type IdbModule = typeof import('idb');
type Database = Awaited<ReturnType<IdbModule['openDB']>>;

/**
 * Records in an IndexedDB database (`type: 'indexeddb'`): one object store per {@link StoreName}, values under
 * out-of-line keys. Opening with a higher `version` runs the upgrade, which creates the stores a version lacks;
 * opening with a lower one than the database has is refused (IndexedDB's VersionError). When another tab opens the
 * database with a higher version, this connection closes so that the upgrade is not blocked, and later calls fail
 * with a {@link BrowserStorageError} saying so.
 */
export class IndexedDbBackend implements RecordBackend {
  readonly #db: Database;
  readonly #dbName: string;
  #closedBy: string | undefined;

  private constructor(db: Database, dbName: string) {
    this.#db = db;
    this.#dbName = dbName;
  }

  /** @throws {BrowserStorageError} without IndexedDB, for a lower version than stored, or when opening fails. */
  static async open(dbName: string, version: number): Promise<IndexedDbBackend> {
    if (!(globalThis as { indexedDB?: unknown }).indexedDB) {
      throw new BrowserStorageError('indexeddb', dbName, 'storage type indexeddb needs a page with IndexedDB');
    }
    const { openDB } = await import('idb');
    // Set once open: a newer version opened elsewhere closes this connection (see `blocking`).
    const opened: { backend?: IndexedDbBackend } = {};
    let db: Database;
    try {
      db = await openDB(dbName, version, {
        upgrade(database) {
          for (const name of STORE_NAMES) {
            if (!database.objectStoreNames.contains(name)) database.createObjectStore(name);
          }
        },
        blocking(_current, wanted) {
          opened.backend?.closeFor(`another page opened ${dbName} at version ${wanted ?? '(deleted)'}`);
        },
      });
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      const why =
        name === 'VersionError'
          ? `it is at a newer version than the version ${version} asked for (a newer release of the page wrote it)`
          : (error as Error).message;
      throw new BrowserStorageError('indexeddb', dbName, `cannot open IndexedDB database ${dbName}: ${why}`, {
        cause: error,
      });
    }
    opened.backend = new IndexedDbBackend(db, dbName);
    return opened.backend;
  }

  async get(store: StoreName, key: string): Promise<string | undefined> {
    const value: unknown = await this.#run(() => this.#db.get(store, key));
    return typeof value === 'string' ? value : undefined;
  }

  async put(store: StoreName, key: string, value: string): Promise<void> {
    await this.#run(() => this.#db.put(store, value, key));
  }

  async addIfAbsent(store: StoreName, key: string, value: string): Promise<string> {
    return this.#run(async () => {
      // `add` fails with a ConstraintError when the key exists: then the record another connection added first is
      // the one kept, read back in a transaction of its own (the failed request aborted this one).
      try {
        await this.#db.add(store, value, key);
        return value;
      } catch (error) {
        if ((error as { name?: unknown }).name !== 'ConstraintError') throw error;
      }
      const found: unknown = await this.#db.get(store, key);
      if (typeof found !== 'string') throw new Error(`the record ${key} of ${store} is not text`);
      return found;
    });
  }

  async delete(store: StoreName, key: string): Promise<boolean> {
    return this.#run(async () => {
      const tx = this.#db.transaction(store, 'readwrite');
      const had = (await tx.store.count(key)) > 0;
      if (had) await tx.store.delete(key);
      await tx.done;
      return had;
    });
  }

  async clear(store: StoreName): Promise<void> {
    await this.#run(() => this.#db.clear(store));
  }

  async entries(store: StoreName): Promise<Array<[string, string]>> {
    return this.#run(async () => {
      const tx = this.#db.transaction(store, 'readonly');
      const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
      await tx.done;
      const out: Array<[string, string]> = [];
      keys.forEach((key: unknown, i: number) => {
        const value: unknown = values[i];
        if (typeof key === 'string' && typeof value === 'string') out.push([key, value]);
      });
      return out;
    });
  }

  async close(): Promise<void> {
    this.closeFor('it was closed');
  }

  /** Closes the connection; later calls fail saying `reason`. */
  private closeFor(reason: string): void {
    if (this.#closedBy) return;
    this.#closedBy = reason;
    this.#db.close();
  }

  async #run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closedBy) {
      throw new BrowserStorageError(
        'indexeddb',
        this.#dbName,
        `IndexedDB database ${this.#dbName} is closed: ${this.#closedBy}`,
      );
    }
    try {
      return await work();
    } catch (error) {
      throw new BrowserStorageError(
        'indexeddb',
        this.#dbName,
        `IndexedDB database ${this.#dbName} failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}
