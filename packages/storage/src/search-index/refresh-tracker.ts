import type { Client, TransportRequestOptions } from '@elastic/elasticsearch';
import { runRequest } from './elasticsearch-errors.js';

/**
 * Read-your-writes for searches. Elasticsearch makes a write searchable at the index's next refresh (every second,
 * or later for an index nobody searched lately); rather than force a refresh with every bulk request (slow for
 * writers) the tracker notes which indices this store wrote to, and a search of one of them refreshes it first, once
 * per burst of writes. Reads by id (`get`, `mget`) are real-time and need none of this.
 */
export class RefreshTracker {
  readonly #client: Client;
  /** What a search of each index key names: an alias over daily indices, or an index. */
  readonly #names: Readonly<Record<string, string>>;
  readonly #dirty = new Set<string>();

  constructor(client: Client, names: Readonly<Record<string, string>>) {
    this.#client = client;
    this.#names = names;
  }

  /** Notes that documents were acknowledged under the index key `key`. */
  written(key: string): void {
    this.#dirty.add(key);
  }

  /** Refreshes the index of `key` when this store wrote to it since its last refresh (`options` for the request). */
  async beforeSearch(key: string, options: TransportRequestOptions = {}): Promise<void> {
    if (!this.#dirty.delete(key)) return;
    const index = this.#names[key] as string;
    // Cleared before the refresh: a write acknowledged while it runs marks the key again for the next search.
    await runRequest('search', key, () =>
      this.#client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true }, options),
    ).catch((error: unknown) => {
      this.#dirty.add(key);
      throw error;
    });
  }
}
