import type { Alert, AlertInput } from '../alerts/alert.js';
import type { AlertDelivery } from '../alerts/alert-delivery.js';
import type { AlertPage, AlertQuery, AlertStore } from '../alerts/alert-store.js';
import { MemoryAlertStore, type MemoryAlertStoreOptions } from '../alerts/memory-alert-store.js';
import { BrowserStorageError } from './browser-storage-error.js';
import type { BrowserStorageOptions } from './browser-storage-options.js';
import { openRecordStorage, type RecordStorage } from './open-record-storage.js';

/** Options of a {@link BrowserAlertStore}: the storage's, and the memory store's limits and clock. */
export interface BrowserAlertStoreOptions extends BrowserStorageOptions, MemoryAlertStoreOptions {}

/** A stored alert: the alert and its place in the order alerts were added. */
interface StoredAlert {
  seq: number;
  alert: Alert;
}

/**
 * An alert store in the page's storage (`indexeddb`, `localstorage` or `memory`): alerts survive a reload. It keeps
 * a {@link MemoryAlertStore} of the stored alerts (loaded on first use), which answers `get`, `list` and `pending`
 * exactly as the memory store does, and writes every change through to storage before it resolves. The memory
 * store's bounds apply (`maxAlerts`, `maxBytes`): the alerts it drops to make room are deleted from storage too.
 * With `encryptionKey`, an alert's id is stored as a keyed hash and the alert encrypted (see `encryptedSealer`).
 *
 * @example
 * ```ts
 * const alertStore = new BrowserAlertStore({ type: 'indexeddb', dbName: 'threatlib', encryptionKey });
 * ```
 */
export class BrowserAlertStore implements AlertStore {
  readonly #options: BrowserAlertStoreOptions;
  #loading: Promise<{ storage: RecordStorage; memory: MemoryAlertStore }> | undefined;
  /** Ids in the order they were added, as the memory store drops them (oldest first). */
  #order: string[] = [];
  #seq = 0;
  #closed = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: BrowserAlertStoreOptions = {}) {
    this.#options = options;
  }

  async add(input: AlertInput): Promise<Alert> {
    return this.#serially(async ({ storage, memory }) => {
      const alert = await memory.add(input);
      const seq = this.#seq++;
      this.#order.push(alert.id);
      await this.#write(storage, { seq, alert });
      await this.#forgetDropped(storage, memory, alert.id);
      return alert;
    });
  }

  async get(id: string): Promise<Alert | undefined> {
    const { memory } = await this.#load();
    return memory.get(id);
  }

  async list(query?: AlertQuery): Promise<AlertPage> {
    const { memory } = await this.#load();
    return memory.list(query);
  }

  async pending(query?: AlertQuery): Promise<AlertPage> {
    const { memory } = await this.#load();
    return memory.pending(query);
  }

  async updateDeliveries(id: string, deliveries: readonly AlertDelivery[]): Promise<Alert | undefined> {
    return this.#serially(async ({ storage, memory }) => {
      const alert = await memory.updateDeliveries(id, deliveries);
      if (!alert) return undefined;
      const stored = await this.#read(storage, id);
      await this.#write(storage, { seq: stored?.seq ?? this.#seq++, alert });
      await this.#forgetDropped(storage, memory, id);
      return alert;
    });
  }

  /** Closes the database connection; the store is not used afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    const loading = this.#loading;
    this.#loading = undefined;
    if (loading) await (await loading.catch(() => undefined))?.storage.backend.close();
  }

  #load(): Promise<{ storage: RecordStorage; memory: MemoryAlertStore }> {
    if (this.#closed) {
      const { type = 'indexeddb', dbName = 'threatlib' } = this.#options;
      return Promise.reject(new BrowserStorageError(type, dbName, `the ${type} alert store of ${dbName} is closed`));
    }
    if (!this.#loading) {
      this.#loading = this.#open();
      this.#loading.catch(() => {
        this.#loading = undefined;
      });
    }
    return this.#loading;
  }

  async #open(): Promise<{ storage: RecordStorage; memory: MemoryAlertStore }> {
    const storage = await openRecordStorage(this.#options);
    try {
      const stored: StoredAlert[] = [];
      for (const [key, value] of await storage.backend.entries('alerts')) {
        const record = await this.#decode(storage, key, value);
        stored.push(record);
      }
      stored.sort((a, b) => a.seq - b.seq);
      const memory = new MemoryAlertStore(this.#options);
      for (const { alert } of stored) await memory.add(alert);
      this.#order = stored.map(({ alert }) => alert.id);
      this.#seq = (stored.at(-1)?.seq ?? -1) + 1;
      return { storage, memory };
    } catch (error) {
      await storage.backend.close();
      throw error;
    }
  }

  async #decode(storage: RecordStorage, key: string, value: string): Promise<StoredAlert> {
    const text = await storage.sealer.open('alerts', key, value);
    let record: Partial<StoredAlert> | undefined;
    try {
      record = text === undefined ? undefined : (JSON.parse(text) as Partial<StoredAlert>);
    } catch {}
    if (!record || !Number.isSafeInteger(record.seq) || typeof record.alert?.id !== 'string') {
      // An alert is never dropped quietly: a record that does not read stops the store, saying which.
      throw new BrowserStorageError(
        storage.type,
        storage.dbName,
        `the ${storage.type} alert store of ${storage.dbName} holds a record that ${text === undefined ? 'does not decrypt' : 'is not an alert'} (key ${key.slice(0, 80)})`,
      );
    }
    return record as StoredAlert;
  }

  async #read(storage: RecordStorage, id: string): Promise<StoredAlert | undefined> {
    const key = await storage.sealer.storedKey('alerts', id);
    const value = await storage.backend.get('alerts', key);
    return value === undefined ? undefined : this.#decode(storage, key, value);
  }

  async #write(storage: RecordStorage, record: StoredAlert): Promise<void> {
    const key = await storage.sealer.storedKey('alerts', record.alert.id);
    await storage.backend.put('alerts', key, await storage.sealer.seal('alerts', key, JSON.stringify(record)));
  }

  /** Deletes from storage the alerts the memory store dropped to make room (the oldest, never `kept`). */
  async #forgetDropped(storage: RecordStorage, memory: MemoryAlertStore, kept: string): Promise<void> {
    const gone: string[] = [];
    for (const id of this.#order) {
      if (id === kept) continue;
      if (await memory.get(id)) break;
      gone.push(id);
    }
    if (gone.length === 0) return;
    const dropped = new Set(gone);
    this.#order = this.#order.filter((id) => !dropped.has(id));
    for (const id of gone) await storage.backend.delete('alerts', await storage.sealer.storedKey('alerts', id));
  }

  /** Runs changes one at a time, so that the order of `seq` and of writes is the order of calls. */
  #serially<T>(work: (opened: { storage: RecordStorage; memory: MemoryAlertStore }) => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => work(await this.#load()));
    this.#queue = run.catch(() => {});
    return run;
  }
}
