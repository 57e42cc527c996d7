import { CacheError } from '../cache/cache-error.js';
import type { CacheEntry, CacheStore } from '../cache/cache-store.js';
import { decodeEntry, encodeEntry } from '../cache/entry-codec.js';
import { checkTtl, isExpired } from '../cache/ttl.js';
import type { ClusterConnection } from './cluster-connection.js';

/** Keys `clear()` asks of each `SCAN` step and removes per `UNLINK`. */
const CLEAR_BATCH = 500;

/**
 * The verdict cache of a cluster, on the cluster's own connection (so it is reachable exactly when the quotas and
 * lookups are shared, and reconnects with them): each entry a Redis string under `<cluster keyPrefix>v:<key>`, in the
 * kvserver cache's format (`{expiresAt, value}` JSON, gzipped with `caching.compression`), set with `PX` so Redis
 * drops it when its TTL ends. While the cluster's Redis is unreachable, `get` answers "not cached" and `set` keeps
 * nothing, at once: a lookup never waits on it.
 */
export class ClusterCache implements CacheStore {
  readonly kind = 'kvserver';
  readonly #connection: ClusterConnection;
  readonly #prefix: string;
  readonly #compression: boolean;
  readonly #now: () => number;
  #closed = false;

  constructor(connection: ClusterConnection, options: { compression: boolean; now: () => number }) {
    this.#connection = connection;
    this.#prefix = `${connection.keyPrefix}v:`;
    this.#compression = options.compression;
    this.#now = options.now;
  }

  async get<T = unknown>(key: string): Promise<CacheEntry<T> | undefined> {
    if (!this.#connection.up && !this.#closed) return undefined;
    const bytes = await this.#run('GET', () =>
      this.#connection.runBinary('GET', (redis) => redis.get(this.#prefix + key)),
    );
    if (bytes === null) return undefined;
    const entry = await decodeEntry(bytes);
    if (!entry || isExpired(entry.expiresAt, this.#now())) return undefined;
    return { value: entry.value as T, expiresAt: entry.expiresAt };
  }

  async set<T = unknown>(key: string, value: T, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs, this.kind);
    const bytes = await encodeEntry({ expiresAt: this.#now() + ttl, value }, this.#compression, this.kind);
    if (!this.#connection.up && !this.#closed) return;
    await this.#run('SET', () =>
      this.#connection.runBinary('SET', (redis) =>
        redis.set(this.#prefix + key, bytes, { expiration: { type: 'PX', value: ttl } }),
      ),
    );
  }

  async delete(key: string): Promise<boolean> {
    return (
      (await this.#run('UNLINK', () => this.#connection.run('UNLINK', (redis) => redis.unlink(this.#prefix + key)))) > 0
    );
  }

  /** Removes every entry under this cache's prefix (SCAN, then UNLINK in batches), and nothing else. */
  async clear(): Promise<void> {
    const match = `${this.#prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    await this.#run('SCAN/UNLINK', () =>
      this.#connection.run('SCAN/UNLINK', async (redis) => {
        for await (const keys of redis.scanIterator({ MATCH: match, COUNT: CLEAR_BATCH })) {
          if (keys.length > 0) await redis.unlink(keys);
        }
      }),
    );
  }

  /** Refuses further use; the connection is the cluster's, which opens and closes with the client. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  async #run<T>(command: string, action: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new CacheError('the cluster cache is closed', { backend: this.kind });
    try {
      return await action();
    } catch (error) {
      throw new CacheError(
        `cluster cache at ${this.#connection.address}: ${command} failed: ${this.#connection.redact(error)}`,
        {
          backend: this.kind,
          cause: error,
        },
      );
    }
  }
}
