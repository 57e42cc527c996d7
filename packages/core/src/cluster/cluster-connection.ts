import { importRedis } from '#cluster-modules';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import { ClusterError } from './cluster-error.js';

/** Where the shared Redis is and how long it may take: `cluster.kvserver` and `cluster.commandTimeout`. */
export interface ClusterConnectionOptions {
  host: string;
  port: number;
  password?: string | undefined;
  db: number;
  keyPrefix: string;
  /** Longest one command may take, in ms; past it the command fails and the connection counts as down. */
  commandTimeout: number;
  /** Longest connecting may take, in ms (default 5000). */
  connectTimeout?: number;
  clock: Clock;
  logger: Logger;
  /** Told when Redis stops answering and when it answers again (never twice in a row the same). */
  onState: (up: boolean, reason: string) => void;
  /** Loads the `redis` package (default `import('redis')`). */
  loadRedis?: () => Promise<unknown>;
}

/** The parts of a node-redis v5+ client the cluster uses (commands are the library's, typed loosely here). */
export interface RedisCommands {
  isReady: boolean;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  duplicate(options?: object): RedisCommands;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  ping(): Promise<string>;
  time(): Promise<[string, string] | { 0: string; 1: string }>;
  get(key: string): Promise<string | null>;
  mGet(keys: string[]): Promise<Array<string | null>>;
  set(key: string, value: string, options?: object): Promise<string | null>;
  del(keys: string | string[]): Promise<number>;
  pExpire(key: string, ms: number): Promise<number>;
  zAdd(key: string, members: { score: number; value: string }, options?: object): Promise<number>;
  zScore(key: string, member: string): Promise<number | null>;
  zRemRangeByScore(key: string, min: number | string, max: number | string): Promise<number>;
  zCard(key: string): Promise<number>;
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel?: string): Promise<void>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  multi(): RedisMulti;
  unlink(keys: string | string[]): Promise<number>;
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[]>;
  withTypeMapping(mapping: Record<number, unknown>): RedisCommands;
}

/** The command connection with bulk-string replies as `Buffer`s (for binary values). */
export interface BinaryCommands {
  get(key: string): Promise<Buffer | null>;
  set(key: string, value: Buffer, options?: object): Promise<unknown>;
}

/** A MULTI … EXEC transaction of node-redis. */
interface RedisMulti {
  zAdd(key: string, members: { score: number; value: string }, options?: object): RedisMulti;
  zRemRangeByScore(key: string, min: number | string, max: number | string): RedisMulti;
  zCard(key: string): RedisMulti;
  pExpire(key: string, ms: number): RedisMulti;
  exec(): Promise<unknown[]>;
}

interface RedisModule {
  createClient(options: object): RedisCommands;
  RESP_TYPES: { BLOB_STRING: number };
}

/** How often a connection that failed is probed with PING until it answers, in ms. */
const PROBE_INTERVAL_MS = 1000;
/** How often a client tells Redis it is alive, and how long that lasts: the peer count of the fallback share. */
const HEARTBEAT_MS = 5000;
const HEARTBEAT_TTL_MS = 15_000;

/**
 * The cluster's connection to Redis: one command connection, one subscriber connection for pub/sub, a clock offset
 * so that every machine reads time from the same server, and the count of live peers.
 *
 * Every command is bounded (`commandTimeout`, node-redis's per-command timeout) and fails at once while the server is
 * unreachable (no offline queue). A failed command marks the connection down (`onState(false)`); it is probed with PING
 * every second, and marked up again (`onState(true)`) once the server answers. The password is never in a message.
 */
export class ClusterConnection {
  readonly keyPrefix: string;
  readonly #options: ClusterConnectionOptions;
  readonly #id = globalThis.crypto.randomUUID();
  #client: RedisCommands | undefined;
  #binary: BinaryCommands | undefined;
  #subscriber: RedisCommands | undefined;
  #up = false;
  #closed = false;
  #probe: unknown;
  #heartbeat: unknown;
  #offsetMs = 0;
  #peers = 1;
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #subscribed = new Set<string>();

  constructor(options: ClusterConnectionOptions) {
    this.#options = options;
    this.keyPrefix = options.keyPrefix;
  }

  /** Where the server is, as `host:port`. */
  get address(): string {
    return `${this.#options.host}:${this.#options.port}`;
  }

  /** Whether the last command (or probe) got an answer. */
  get up(): boolean {
    return this.#up && this.#client?.isReady === true;
  }

  /** The command connection, for libraries that take a node-redis client (rate-limiter-flexible). */
  get client(): RedisCommands | undefined {
    return this.#client;
  }

  /** Live clients sharing this prefix, as last counted in Redis (1 until counted). */
  get peers(): number {
    return this.#peers;
  }

  /** Epoch ms on the server's clock (the local clock corrected by the offset measured with TIME). */
  now(): number {
    return this.#options.clock.now() + this.#offsetMs;
  }

  /** The server's clock minus the client's, in ms (measured with TIME at each (re)connection). */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** A command sent outside `run` (by a library on `client`) failed: the connection counts as down until probed. */
  failed(what: string, error: unknown): void {
    this.#markDown(`${what} failed: ${this.#redact(error)}`);
  }

  /**
   * Connects both connections. Resolves either way: when Redis cannot be reached, the connection is down
   * (`onState(false)` with the reason) and keeps trying in the background.
   */
  async start(): Promise<void> {
    let redis: RedisModule;
    try {
      redis = await this.#load();
    } catch (error) {
      this.#markDown(this.#redact(error));
      throw error;
    }
    const { host, port, password, db, commandTimeout } = this.#options;
    const connectTimeout = this.#options.connectTimeout ?? 5000;
    const make = () =>
      redis.createClient({
        socket: {
          host,
          port,
          connectTimeout,
          // Reconnect for as long as the client runs, backing off to 2 s: the cluster degrades, it never gives up.
          reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
        },
        password: password || undefined,
        database: db,
        // Commands sent while disconnected fail at once instead of waiting for a reconnect that may not come.
        disableOfflineQueue: true,
        commandOptions: { timeout: commandTimeout },
      });
    const client = make();
    const subscriber = make();
    for (const connection of [client, subscriber]) {
      // node-redis emits every socket error; without a listener one would crash the process.
      connection.on('error', (error) => {
        if (connection === client) this.#markDown(this.#redact(error));
      });
    }
    client.on('ready', () => this.#schedule(0));
    subscriber.on('ready', () => void this.#subscribeAll());
    client.on('end', () => this.#markDown('the connection closed'));
    this.#client = client;
    this.#binary = client.withTypeMapping({ [redis.RESP_TYPES.BLOB_STRING]: Buffer }) as unknown as BinaryCommands;
    this.#subscriber = subscriber;
    const connecting = Promise.all([client.connect(), subscriber.connect()]);
    // Past the time limit node-redis keeps trying in the background; how that ends is told by its events.
    connecting.catch(() => undefined);
    const connected = await this.#within(connecting, connectTimeout, `connecting to ${this.address}`).then(
      () => true,
      (error: unknown) => {
        this.#markDown(`cannot connect to Redis at ${this.address}: ${this.#redact(error)}`);
        return false;
      },
    );
    if (connected) await this.#check();
    this.#heartbeat = this.#options.clock.setTimeout(() => this.#beat(), HEARTBEAT_MS, { unref: true });
  }

  /**
   * Runs one or more commands. Rejects with a {@link ClusterError} when the connection is down or a command fails
   * (and then marks it down).
   */
  async run<T>(what: string, action: (redis: RedisCommands) => Promise<T>): Promise<T> {
    return this.#run(what, () => action(this.#client as RedisCommands));
  }

  /** {@link run}, with bulk-string replies as `Buffer`s. */
  async runBinary<T>(what: string, action: (redis: BinaryCommands) => Promise<T>): Promise<T> {
    return this.#run(what, () => action(this.#binary as BinaryCommands));
  }

  async #run<T>(what: string, action: () => Promise<T>): Promise<T> {
    const client = this.#client;
    if (this.#closed || !client || !this.up) {
      throw new ClusterError(`Redis at ${this.address} is unreachable; ${what} not done`);
    }
    try {
      // A transaction or script is several round trips at worst: bound the whole, not only each command.
      return await this.#within(action(), this.#options.commandTimeout * 2, what);
    } catch (error) {
      this.#markDown(`${what} failed: ${this.#redact(error)}`);
      throw new ClusterError(`Redis at ${this.address}: ${what} failed: ${this.#redact(error)}`, { cause: error });
    }
  }

  /** Calls `listener` with each message published on `channel` (under the key prefix) while the client runs. */
  async subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    const name = this.keyPrefix + channel;
    let listeners = this.#channels.get(name);
    if (!listeners) {
      listeners = new Set();
      this.#channels.set(name, listeners);
    }
    listeners.add(listener);
    await this.#subscribeAll();
  }

  /**
   * Sends SUBSCRIBE for the channels not subscribed yet, once the subscriber connection is ready (at start, or when it
   * first connects); node-redis subscribes again by itself after a reconnect.
   */
  async #subscribeAll(): Promise<void> {
    const subscriber = this.#subscriber;
    if (!subscriber?.isReady) return;
    for (const [name, listeners] of this.#channels) {
      if (this.#subscribed.has(name)) continue;
      this.#subscribed.add(name);
      try {
        await this.#within(
          subscriber.subscribe(name, (message) => {
            for (const each of listeners) each(message);
          }),
          this.#options.commandTimeout * 2,
          `SUBSCRIBE ${name}`,
        );
      } catch {
        // Tried again on the next 'ready'; meanwhile those waiting for an answer look for it every 250 ms.
        this.#subscribed.delete(name);
      }
    }
  }

  /** Publishes `message` on `channel` (under the key prefix). */
  async publish(channel: string, message: string): Promise<void> {
    await this.run(`PUBLISH ${channel}`, (redis) => redis.publish(this.keyPrefix + channel, message));
  }

  /** Closes both connections and stops the background timers. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#options.clock.clearTimeout(this.#probe);
    this.#options.clock.clearTimeout(this.#heartbeat);
    const client = this.#client;
    if (client && this.up) {
      // Leave the peer count at once rather than when the heartbeat expires.
      await client.zAdd(`${this.keyPrefix}peers`, { score: 0, value: this.#id }).catch(() => undefined);
    }
    for (const connection of [this.#client, this.#subscriber]) {
      if (!connection) continue;
      try {
        await this.#within(connection.close(), 1000, 'closing');
      } catch {
        try {
          connection.destroy();
        } catch {
          // Already closed.
        }
      }
    }
    this.#client = undefined;
    this.#binary = undefined;
    this.#subscriber = undefined;
  }

  /** The error's message with the password masked, in case a server or library ever echoes it. */
  redact(error: unknown): string {
    return this.#redact(error);
  }

  #redact(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const password = this.#options.password;
    return password ? message.split(password).join('***') : message;
  }

  #markDown(reason: string): void {
    if (this.#closed) return;
    if (this.#up) {
      this.#up = false;
      this.#announcedDown = true;
      this.#options.onState(false, reason);
    } else if (!this.#announcedDown) {
      this.#announcedDown = true;
      this.#options.onState(false, reason);
    }
    this.#schedule(PROBE_INTERVAL_MS);
  }

  /** Whether the first `onState(false)` was told (a client that never reached Redis is down from the start). */
  #announcedDown = false;

  #schedule(ms: number): void {
    if (this.#closed) return;
    this.#options.clock.clearTimeout(this.#probe);
    this.#probe = this.#options.clock.setTimeout(() => void this.#check(), ms, { unref: true });
  }

  /** PING (and TIME, for the clock offset); marks the connection up when both answer. */
  async #check(): Promise<void> {
    const client = this.#client;
    if (this.#closed || !client) return;
    if (!client.isReady) {
      this.#schedule(PROBE_INTERVAL_MS);
      return;
    }
    try {
      const before = this.#options.clock.now();
      const reply = await this.#within(client.time(), this.#options.commandTimeout, 'TIME');
      const after = this.#options.clock.now();
      const seconds = Number((reply as { 0: string })[0]);
      const micros = Number((reply as { 1: string })[1]);
      if (Number.isFinite(seconds) && Number.isFinite(micros)) {
        this.#offsetMs = Math.round(seconds * 1000 + micros / 1000 - (before + after) / 2);
      }
      await this.#countPeers(client);
    } catch (error) {
      this.#markDown(`Redis at ${this.address} does not answer: ${this.#redact(error)}`);
      return;
    }
    if (!this.#up) {
      this.#up = true;
      this.#announcedDown = false;
      this.#options.onState(true, `Redis at ${this.address} answers`);
    }
  }

  async #beat(): Promise<void> {
    const client = this.#client;
    if (this.#closed) return;
    if (client && this.up) {
      try {
        await this.#within(this.#countPeers(client), this.#options.commandTimeout * 2, 'heartbeat');
      } catch (error) {
        this.#markDown(`heartbeat failed: ${this.#redact(error)}`);
      }
    }
    if (!this.#closed) {
      this.#heartbeat = this.#options.clock.setTimeout(() => this.#beat(), HEARTBEAT_MS, { unref: true });
    }
  }

  /** Says this client is alive for the next 15 s and counts those alive: the peers the fallback share divides by. */
  async #countPeers(client: RedisCommands): Promise<void> {
    const key = `${this.keyPrefix}peers`;
    const now = this.now();
    const [, , count] = await client
      .multi()
      .zAdd(key, { score: now + HEARTBEAT_TTL_MS, value: this.#id })
      .zRemRangeByScore(key, '-inf', now)
      .zCard(key)
      .pExpire(key, HEARTBEAT_TTL_MS * 2)
      .exec();
    if (typeof count === 'number' && count > 0) this.#peers = count;
  }

  #within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  async #load(): Promise<RedisModule> {
    let loaded: unknown;
    try {
      loaded = await (this.#options.loadRedis ?? importRedis)();
    } catch (error) {
      if (RuntimeUnsupportedError.isInstance(error)) throw error;
      throw new ClusterError("cluster needs the 'redis' package: npm install redis", { cause: error });
    }
    const module = loaded as Partial<RedisModule> | undefined;
    if (typeof module?.createClient !== 'function' || typeof module.RESP_TYPES?.BLOB_STRING !== 'number') {
      throw new ClusterError("cluster needs the 'redis' package (version 5 or later): npm install redis");
    }
    return module as RedisModule;
  }
}
