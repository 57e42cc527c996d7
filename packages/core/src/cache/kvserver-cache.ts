import { REDACTED } from '../logging/redaction.js';
import { INSPECT_CUSTOM, type InspectFunction, type InspectOptions, inspectView } from '../security/redacted-view.js';
import { CacheError } from './cache-error.js';
import type { CacheEntry, CacheStore } from './cache-store.js';
import { decodeEntry, encodeEntry } from './entry-codec.js';
import { checkTtl, isExpired } from './ttl.js';

/** Options of a {@link KvServerCache}; the first five mirror `caching.kvserver`. */
export interface KvServerCacheOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 6379. */
  port?: number;
  /** The `default` user's password (Redis `requirepass`), if the server has one. Never appears in an error. */
  password?: string;
  /** Database number. Default 0. */
  db?: number;
  /** Put before every key, so several applications (or tests) share one database safely. Default `threatlib:`. */
  keyPrefix?: string;
  /** Gzip values before storing them. Default false. Entries written either way are read either way. */
  compression?: boolean;
  /** How long connecting (TCP, then the handshake) may take before it fails, in ms. Default 5000. */
  connectTimeout?: number;
  /** The clock `expiresAt` is computed and checked with, in epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Loads the `redis` package. Default `() => import('redis')`; pass your own when a bundler cannot follow the
   * dynamic import, or to supply the module explicitly.
   */
  loadRedis?: () => Promise<unknown>;
}

/** The parts of a node-redis client this back end uses, with `BLOB_STRING` replies mapped to `Buffer`. */
interface RedisConnection {
  connect(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  withTypeMapping(mapping: Record<number, unknown>): RedisConnection;
  get(key: string): Promise<Buffer | null>;
  set(key: string, value: Buffer, options: { expiration: { type: 'PX'; value: number } }): Promise<unknown>;
  unlink(keys: string | Array<string | Buffer>): Promise<number>;
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<Array<string | Buffer>>;
  close(): Promise<void>;
  destroy(): void;
}

interface RedisModule {
  createClient(options: object): RedisConnection;
  RESP_TYPES: { BLOB_STRING: number };
}

/** Keys `clear()` asks of each `SCAN` step and deletes per `UNLINK`: few round trips, yet no long stall of Redis. */
const CLEAR_BATCH = 500;

/**
 * A cache in Redis (or a server speaking its protocol, such as Valkey) through the official `redis` package
 * (`caching.type: 'kvserver'`). `redis` is an optional peer dependency, loaded on first use: core works without it,
 * and this back end says how to install it when it is missing.
 *
 * Each entry is one Redis string under `keyPrefix + key`, set with `PX` so Redis itself drops it when its TTL ends;
 * the stored `expiresAt` is also checked against the injected clock on read. Redis's own memory limit and eviction
 * policy (`maxmemory`, `maxmemory-policy`) bound the size, so this back end has no `onEvict`: Redis does not tell
 * clients what it evicted. `clear()` removes only keys under this prefix. The connection opens on `start()` or the
 * first call; while it is down, calls fail at once with a `CacheError` rather than queue, so a lookup never waits on a
 * broken cache.
 *
 * @example
 * ```ts
 * const cache = new KvServerCache({ host: 'redis.internal', password: process.env.REDIS_PASSWORD });
 * await cache.start(); // fails here, with host:port in the message, if Redis cannot be reached
 * ```
 */
export class KvServerCache implements CacheStore {
  readonly kind = 'kvserver';
  readonly #host: string;
  readonly #port: number;
  readonly #password: string | undefined;
  readonly #db: number;
  readonly #keyPrefix: string;
  readonly #compression: boolean;
  readonly #connectTimeout: number;
  readonly #now: () => number;
  readonly #loadRedis: () => Promise<unknown>;
  #connecting: Promise<RedisConnection> | undefined;
  /** The raw client, kept to close it even when connecting has not finished. */
  #client: RedisConnection | undefined;
  #closed = false;

  constructor(options: KvServerCacheOptions = {}) {
    this.#host = options.host ?? '127.0.0.1';
    this.#port = options.port ?? 6379;
    this.#password = options.password || undefined;
    this.#db = options.db ?? 0;
    this.#keyPrefix = options.keyPrefix ?? 'threatlib:';
    this.#compression = options.compression ?? false;
    this.#connectTimeout = options.connectTimeout ?? 5000;
    this.#now = options.now ?? Date.now;
    this.#loadRedis = options.loadRedis ?? (() => import('redis'));
  }

  /** Where this cache lives, as `host:port`, for messages and status output. */
  get address(): string {
    return `${this.#host}:${this.#port}`;
  }

  /** What `JSON.stringify` writes of the cache: where it is and how it keys entries; the password only as redacted. */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      address: this.address,
      db: this.#db,
      keyPrefix: this.#keyPrefix,
      ...(this.#password === undefined ? {} : { password: REDACTED }),
    };
  }

  /** What `util.inspect` and `console.log` show of the cache: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('KvServerCache', this.toJSON(), depth, options, inspect);
  }

  /** Connects now, so that a wrong host, port or password fails at start rather than at the first lookup. */
  async start(): Promise<void> {
    await this.#connection();
  }

  /** {@inheritDoc CacheStore.get} */
  async get<T = unknown>(key: string): Promise<CacheEntry<T> | undefined> {
    const redisKey = this.#keyPrefix + key;
    const bytes = await this.#run('GET', (redis) => redis.get(redisKey));
    if (bytes === null) return undefined;
    const entry = await decodeEntry(bytes);
    if (!entry) {
      // Not ours or damaged: drop it so the next lookup refills it instead of failing the same way.
      await this.#run('UNLINK', (redis) => redis.unlink(redisKey));
      return undefined;
    }
    // Redis drops the key itself when PX ends; this check makes the injected clock authoritative as well.
    if (isExpired(entry.expiresAt, this.#now())) return undefined;
    return { value: entry.value as T, expiresAt: entry.expiresAt };
  }

  /** {@inheritDoc CacheStore.set} */
  async set<T = unknown>(key: string, value: T, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs, this.kind);
    const bytes = await encodeEntry({ expiresAt: this.#now() + ttl, value }, this.#compression, this.kind);
    await this.#run('SET', (redis) =>
      redis.set(this.#keyPrefix + key, bytes, { expiration: { type: 'PX', value: ttl } }),
    );
  }

  /** {@inheritDoc CacheStore.delete} */
  async delete(key: string): Promise<boolean> {
    return (await this.#run('UNLINK', (redis) => redis.unlink(this.#keyPrefix + key))) > 0;
  }

  /**
   * Removes every key under this cache's `keyPrefix` (SCAN, then UNLINK in batches), leaving the rest of the
   * database alone. Refuses when `keyPrefix` is empty, since that would delete every key in the database.
   */
  async clear(): Promise<void> {
    if (this.#keyPrefix === '') {
      throw new CacheError(
        `refusing to clear Redis at ${this.address} db ${this.#db}: keyPrefix is empty, so every key in the database would go; set caching.kvserver.keyPrefix`,
        { backend: this.kind },
      );
    }
    const match = `${escapeGlob(this.#keyPrefix)}*`;
    await this.#run('SCAN/UNLINK', async (redis) => {
      for await (const keys of redis.scanIterator({ MATCH: match, COUNT: CLEAR_BATCH })) {
        if (keys.length > 0) await redis.unlink(keys);
      }
    });
  }

  /** Quits the connection (after the commands already sent have answered); the cache refuses further use. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A connection still being made is finished (or failed) before it is closed, so it cannot open after close.
    await this.#connecting?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    this.#connecting = undefined;
    if (!client) return;
    try {
      await client.close();
    } catch {
      // Already closed by a failure: make sure no socket or reconnect timer is left.
      destroyQuietly(client);
    }
  }

  async #run<T>(command: string, action: (redis: RedisConnection) => Promise<T>): Promise<T> {
    const redis = await this.#connection();
    try {
      return await action(redis);
    } catch (error) {
      throw new CacheError(`Redis cache at ${this.address}: ${command} failed: ${this.#redact(error)}`, {
        backend: this.kind,
        cause: error,
      });
    }
  }

  #connection(): Promise<RedisConnection> {
    if (this.#closed) return Promise.reject(new CacheError('the kvserver cache is closed', { backend: this.kind }));
    if (!this.#connecting) {
      this.#connecting = this.#connect();
      // A failed attempt is forgotten so that the next call tries again (Redis may have come up since).
      this.#connecting.catch(() => {
        this.#connecting = undefined;
      });
    }
    return this.#connecting;
  }

  async #connect(): Promise<RedisConnection> {
    const redis = await this.#load();
    let connected = false;
    const client = redis.createClient({
      socket: {
        host: this.#host,
        port: this.#port,
        connectTimeout: this.#connectTimeout,
        // Fail the first connection at once (the caller gets the reason); after that, reconnect with backoff.
        reconnectStrategy: (retries: number) => (connected ? Math.min(100 * 2 ** retries, 5000) : false),
      },
      password: this.#password,
      database: this.#db,
      // Without this, commands sent while disconnected wait for a reconnect that may never come.
      disableOfflineQueue: true,
    });
    // node-redis emits every socket error; without a listener, one would crash the process.
    client.on('error', () => undefined);
    this.#client = client;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(),
        new Promise<never>((_, reject) => {
          // The socket's own timeout covers TCP only; this one also covers a server that accepts and never answers.
          timer = setTimeout(
            () => reject(new Error(`timed out after ${this.#connectTimeout} ms`)),
            this.#connectTimeout,
          );
        }),
      ]);
      connected = true;
    } catch (error) {
      destroyQuietly(client);
      if (this.#client === client) this.#client = undefined;
      throw new CacheError(
        `cannot connect to the Redis cache at ${this.address} (db ${this.#db}): ${this.#redact(error)}`,
        {
          backend: this.kind,
          cause: error,
        },
      );
    } finally {
      clearTimeout(timer);
    }
    return client.withTypeMapping({ [redis.RESP_TYPES.BLOB_STRING]: Buffer });
  }

  async #load(): Promise<RedisModule> {
    let loaded: unknown;
    try {
      loaded = await this.#loadRedis();
    } catch (error) {
      throw new CacheError("caching.type 'kvserver' needs the 'redis' package: npm install redis", {
        backend: this.kind,
        cause: error,
      });
    }
    const module = loaded as Partial<RedisModule> | undefined;
    if (typeof module?.createClient !== 'function' || typeof module.RESP_TYPES?.BLOB_STRING !== 'number') {
      throw new CacheError(
        "caching.type 'kvserver' needs the 'redis' package (version 5 or later): npm install redis",
        {
          backend: this.kind,
        },
      );
    }
    return module as RedisModule;
  }

  /** The error's message with the password masked, in case a server or library ever echoes it. */
  #redact(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    return this.#password ? message.split(this.#password).join('***') : message;
  }
}

/** `text` with Redis glob characters escaped, so a prefix such as `app[1]:` matches only itself. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

function destroyQuietly(client: RedisConnection): void {
  try {
    client.destroy();
  } catch {
    // A client that never opened, or is already closed, has nothing left to release.
  }
}
