import type { RecordBackend, StoreName } from './record-backend.js';

/** Records in this page's memory (`type: 'memory'`): nothing survives a reload. */
export class MemoryBackend implements RecordBackend {
  readonly #stores = new Map<StoreName, Map<string, string>>();

  #store(name: StoreName): Map<string, string> {
    let store = this.#stores.get(name);
    if (!store) {
      store = new Map();
      this.#stores.set(name, store);
    }
    return store;
  }

  async get(store: StoreName, key: string): Promise<string | undefined> {
    return this.#store(store).get(key);
  }

  async put(store: StoreName, key: string, value: string): Promise<void> {
    this.#store(store).set(key, value);
  }

  async addIfAbsent(store: StoreName, key: string, value: string): Promise<string> {
    const records = this.#store(store);
    const found = records.get(key);
    if (found !== undefined) return found;
    records.set(key, value);
    return value;
  }

  async delete(store: StoreName, key: string): Promise<boolean> {
    return this.#store(store).delete(key);
  }

  async clear(store: StoreName): Promise<void> {
    this.#store(store).clear();
  }

  async entries(store: StoreName): Promise<Array<[string, string]>> {
    return [...this.#store(store)];
  }

  async close(): Promise<void> {
    this.#stores.clear();
  }
}
