import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CacheError } from './cache-error.js';
import type { CacheEntry, CacheStore } from './cache-store.js';
import { defaultFileCacheDirectory } from './default-directory.js';
import { decodeEntry, encodeEntry } from './entry-codec.js';
import { EvictionListeners } from './eviction-listeners.js';
import { sha256Hex } from './sha256.js';
import { parseSize } from './size.js';
import { checkTtl, isExpired } from './ttl.js';

/** What one periodic cleanup did, as passed to `FileCacheOptions.onSweep`. */
export interface SweepOutcome {
  /** Expired or corrupt entries removed. */
  removed: number;
  /** Why the sweep stopped early, when it did. */
  error?: CacheError;
}

/** Options of a {@link FileCache}; they mirror `caching.filesystem` plus `compression`. */
export interface FileCacheOptions {
  /** Where entries are kept. Default `<os.tmpdir()>/threatlib-cache`. */
  directory?: string;
  /** The most bytes of entries kept: a size string (`100MB`, `512 MiB`, see `parseSize`) or bytes. Default `100MB`. */
  maxSize?: string | number;
  /** How often `start()`'s cleanup removes expired entries, in ms. Default one hour. */
  cleanupInterval?: number;
  /** Gzip entries. Default false. Entries written either way are read either way. */
  compression?: boolean;
  /** The clock expiry is measured with, in epoch ms. Default `Date.now`. */
  now?: () => number;
  /** Told the outcome of each periodic cleanup (the client logs it); a failed cleanup is otherwise unreported. */
  onSweep?: (outcome: SweepOutcome) => void;
}

/** The directory a {@link FileCache} uses when none is given (this module runs in Node.js only: there is one). */
export const DEFAULT_FILE_CACHE_DIRECTORY = defaultFileCacheDirectory() as string;

const ENTRY_FILE = /^[0-9a-f]{64}\.cache$/;
const TEMP_FILE = /^[0-9a-f]{64}\.cache\.[0-9a-z.-]+\.tmp$/;
/** A temp file this old at open was left by a crash: no write takes that long. */
const STALE_TEMP_MS = 10 * 60_000;

interface IndexEntry {
  size: number;
  /** Unknown for files found at open until a read or a sweep looks inside them. */
  expiresAt: number | undefined;
}

/**
 * A cache on the local disk, one file per entry, bounded by total bytes (`caching.type: 'file'`).
 *
 * A file is named by the SHA-256 of its key (any key is a safe, fixed-length name) and holds the entry as JSON, or
 * gzip-compressed JSON when `compression` is on. Writes go to a temp file that is then renamed over the entry, so a
 * reader, a crash or another process never sees half an entry. Sizes and write order live in an in-memory index
 * built once, by scanning the directory, when the cache opens (at `start()` or first use); when a write takes the
 * total over `maxSize`, the oldest-written entries are deleted until it fits again and `onEvict` listeners hear how
 * many. An entry larger than `maxSize` on its own is therefore not kept. The bound is exact for one process per
 * directory; entries other processes write are counted from the next open.
 *
 * `start()` also runs a cleanup of expired entries every `cleanupInterval` ms, on a timer that does not keep the
 * process alive; `close()` stops it. A file that cannot be read as an entry is a miss and is removed. The directory
 * is created private (0700) and refused when anyone may write to it, since whoever can write an entry can make a
 * malicious indicator read as clean; the default directory must also belong to the current user.
 *
 * @example
 * ```ts
 * const cache = new FileCache({ directory: '/var/cache/threatlib', maxSize: '500MB', compression: true });
 * await cache.start();
 * ```
 */
export class FileCache implements CacheStore {
  readonly kind = 'file';
  /** The directory entries are kept in. */
  readonly directory: string;
  /** The most bytes of entries kept. */
  readonly maxSize: number;
  readonly #cleanupInterval: number;
  readonly #compression: boolean;
  readonly #now: () => number;
  readonly #onSweep: ((outcome: SweepOutcome) => void) | undefined;
  readonly #listeners = new EvictionListeners();
  /** File name -> size and expiry, in write order (oldest first): Map keeps insertion order. */
  readonly #index = new Map<string, IndexEntry>();
  #total = 0;
  #opening: Promise<void> | undefined;
  /** Mutations run one after another, so the index always matches what the last finished write left on disk. */
  #tail: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #closed = false;

  constructor(options: FileCacheOptions = {}) {
    this.directory = options.directory ?? DEFAULT_FILE_CACHE_DIRECTORY;
    const maxSize = options.maxSize ?? '100MB';
    this.maxSize = typeof maxSize === 'number' ? maxSize : parseSize(maxSize, 'caching.filesystem.maxSize');
    if (!Number.isFinite(this.maxSize) || this.maxSize <= 0) {
      throw new CacheError(`maxSize must be more than 0 bytes, got ${String(maxSize)}`, { backend: this.kind });
    }
    this.#cleanupInterval = options.cleanupInterval ?? 3_600_000;
    if (!Number.isFinite(this.#cleanupInterval) || this.#cleanupInterval <= 0) {
      throw new CacheError(`cleanupInterval must be a positive number of ms, got ${this.#cleanupInterval}`, {
        backend: this.kind,
      });
    }
    this.#compression = options.compression ?? false;
    this.#now = options.now ?? Date.now;
    this.#onSweep = options.onSweep;
  }

  /** Bytes of entries held, as the index counts them. */
  get totalSize(): number {
    return this.#total;
  }

  /** Opens the directory (creating it, building the index) and starts the periodic cleanup. */
  async start(): Promise<void> {
    await this.#open();
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => this.#sweepInBackground(), this.#cleanupInterval);
    // Housekeeping must never be what keeps a CLI or a test process running.
    this.#timer.unref();
  }

  /** {@inheritDoc CacheStore.get} */
  async get<T = unknown>(key: string): Promise<CacheEntry<T> | undefined> {
    await this.#open();
    const name = fileName(key);
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.directory, name));
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      throw this.#error(`cannot read an entry in ${this.directory}`, error);
    }
    const entry = await decodeEntry(bytes);
    if (!entry || entry.key !== key || isExpired(entry.expiresAt, this.#now())) {
      // A damaged or expired file would only fail or miss again; removing it keeps the directory honest. Failing
      // to remove it is not this lookup's problem: the answer (a miss) is right, and the next write replaces it.
      await this.#exclusive(() => this.#removeIfStale(name)).catch(() => undefined);
      return undefined;
    }
    const known = this.#index.get(name);
    if (known) known.expiresAt = entry.expiresAt;
    return { value: entry.value as T, expiresAt: entry.expiresAt };
  }

  /** {@inheritDoc CacheStore.set} */
  async set<T = unknown>(key: string, value: T, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs, this.kind);
    const expiresAt = this.#now() + ttl;
    const bytes = await encodeEntry({ key, expiresAt, value }, this.#compression, this.kind);
    await this.#open();
    const name = fileName(key);
    const evicted = await this.#exclusive(async () => {
      const path = join(this.directory, name);
      const temp = `${path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
      try {
        await writeFile(temp, bytes, { mode: 0o600, flag: 'wx' });
        await rename(temp, path);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw this.#error(`cannot write an entry in ${this.directory}`, error);
      }
      this.#forget(name);
      this.#index.set(name, { size: bytes.length, expiresAt });
      this.#total += bytes.length;
      return this.#evictOverflow();
    });
    this.#listeners.emit(evicted);
  }

  /** {@inheritDoc CacheStore.delete} */
  async delete(key: string): Promise<boolean> {
    await this.#open();
    const name = fileName(key);
    return this.#exclusive(async () => {
      try {
        await unlink(join(this.directory, name));
      } catch (error) {
        if (!isCode(error, 'ENOENT')) throw this.#error(`cannot delete an entry in ${this.directory}`, error);
        this.#forget(name);
        return false;
      }
      this.#forget(name);
      return true;
    });
  }

  /**
   * Removes every entry file in the directory (those other processes wrote included) and nothing else: files that
   * are not cache entries, and other directories, are left alone.
   */
  async clear(): Promise<void> {
    await this.#open();
    await this.#exclusive(async () => {
      let names: string[];
      try {
        names = await readdir(this.directory);
      } catch (error) {
        throw this.#error(`cannot list ${this.directory}`, error);
      }
      for (const name of names) {
        if (!ENTRY_FILE.test(name)) continue;
        try {
          await unlink(join(this.directory, name));
        } catch (error) {
          if (!isCode(error, 'ENOENT')) throw this.#error(`cannot delete an entry in ${this.directory}`, error);
        }
        this.#forget(name);
      }
      this.#index.clear();
      this.#total = 0;
    });
  }

  /**
   * Removes expired and corrupt entries now and resolves to how many went. `start()` runs this every
   * `cleanupInterval` ms; call it yourself to clean up at a moment of your choosing.
   */
  async sweep(): Promise<number> {
    await this.#open();
    let removed = 0;
    const now = this.#now();
    for (const [name, entry] of [...this.#index]) {
      if (this.#closed) break;
      if (entry.expiresAt !== undefined && !isExpired(entry.expiresAt, now)) continue;
      if (await this.#exclusive(() => this.#removeIfStale(name))) removed += 1;
    }
    return removed;
  }

  /** Calls `listener` with the number of entries deleted each time a write takes the total over `maxSize`. */
  onEvict(listener: (count: number) => void): void {
    this.#listeners.add(listener);
  }

  /** Stops the periodic cleanup and waits for work under way; the cache refuses further use. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
    await this.#tail;
  }

  #open(): Promise<void> {
    if (this.#closed) return Promise.reject(new CacheError('the file cache is closed', { backend: this.kind }));
    if (!this.#opening) {
      this.#opening = this.#exclusive(() => this.#scan());
      // A failed open is forgotten, so that fixing the directory's permissions is enough to recover.
      this.#opening.catch(() => {
        this.#opening = undefined;
      });
    }
    return this.#opening;
  }

  async #scan(): Promise<void> {
    const found: Array<{ name: string; size: number; mtime: number }> = [];
    try {
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      await this.#checkDirectory();
      for (const name of await readdir(this.directory)) {
        if (ENTRY_FILE.test(name)) {
          const info = await stat(join(this.directory, name)).catch(() => undefined);
          if (info?.isFile()) found.push({ name, size: info.size, mtime: info.mtimeMs });
        } else if (TEMP_FILE.test(name)) {
          const info = await stat(join(this.directory, name)).catch(() => undefined);
          // File times are wall-clock times, so this compares with the real clock, not the injected one.
          if (info && Date.now() - info.mtimeMs > STALE_TEMP_MS) {
            await unlink(join(this.directory, name)).catch(() => undefined);
          }
        }
      }
    } catch (error) {
      if (CacheError.isInstance(error)) throw error;
      throw this.#error(`cannot open the file cache in ${this.directory}`, error);
    }
    // The last write time is the best record of age there is after a restart.
    found.sort((a, b) => a.mtime - b.mtime);
    for (const file of found) {
      this.#index.set(file.name, { size: file.size, expiresAt: undefined });
      this.#total += file.size;
    }
    // maxSize may have been lowered since the entries were written.
    this.#listeners.emit(await this.#evictOverflow());
  }

  async #checkDirectory(): Promise<void> {
    const info = await stat(this.directory);
    if (!info.isDirectory()) {
      throw new CacheError(`cannot use ${this.directory} for the file cache: it is not a directory`, {
        backend: this.kind,
      });
    }
    if ((info.mode & 0o002) !== 0) {
      throw new CacheError(
        `refusing to keep the file cache in ${this.directory}: anyone can write there and plant entries; use a private directory (caching.filesystem.directory)`,
        { backend: this.kind },
      );
    }
    const uid = process.getuid?.();
    if (this.directory === DEFAULT_FILE_CACHE_DIRECTORY && uid !== undefined && info.uid !== uid) {
      throw new CacheError(
        `refusing to use ${this.directory}: it belongs to another user (uid ${info.uid}), who could plant entries; set caching.filesystem.directory`,
        { backend: this.kind },
      );
    }
  }

  /** Deletes oldest-written entries until the total fits; resolves to how many went. Runs inside `#exclusive`. */
  async #evictOverflow(): Promise<number> {
    let evicted = 0;
    for (const [name] of this.#index) {
      if (this.#total <= this.maxSize) break;
      try {
        await unlink(join(this.directory, name));
      } catch (error) {
        if (!isCode(error, 'ENOENT')) throw this.#error(`cannot evict an entry in ${this.directory}`, error);
      }
      this.#forget(name);
      evicted += 1;
    }
    return evicted;
  }

  /** Removes the entry file `name` when it is expired or corrupt; resolves to whether it did. Runs inside `#exclusive`. */
  async #removeIfStale(name: string): Promise<boolean> {
    const path = join(this.directory, name);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if (!isCode(error, 'ENOENT')) throw this.#error(`cannot read an entry in ${this.directory}`, error);
      // Someone else removed it: the index was out of date.
      this.#forget(name);
      return false;
    }
    // Read again under the lock: a write may have replaced the stale file since the caller looked.
    const entry = await decodeEntry(bytes);
    const corrupt = !entry || typeof entry.key !== 'string' || fileName(entry.key) !== name;
    if (!corrupt && !isExpired(entry.expiresAt, this.#now())) {
      const known = this.#index.get(name);
      if (known) known.expiresAt = entry.expiresAt;
      return false;
    }
    try {
      await unlink(path);
    } catch (error) {
      if (!isCode(error, 'ENOENT')) throw this.#error(`cannot remove an entry in ${this.directory}`, error);
    }
    this.#forget(name);
    return true;
  }

  #sweepInBackground(): void {
    if (this.#sweeping || this.#closed) return;
    const run = async () => {
      let outcome: SweepOutcome;
      try {
        outcome = { removed: await this.sweep() };
      } catch (error) {
        // After close a sweep cut short is expected, not a failure worth reporting.
        if (this.#closed) return;
        outcome = { removed: 0, error: CacheError.isInstance(error) ? error : this.#error('cleanup failed', error) };
      }
      this.#onSweep?.(outcome);
    };
    // A throwing onSweep must not become an unhandled rejection on a timer (which ends a Node.js process).
    this.#sweeping = run()
      .catch(() => undefined)
      .finally(() => {
        this.#sweeping = undefined;
      });
  }

  #forget(name: string): void {
    const entry = this.#index.get(name);
    if (!entry) return;
    this.#total -= entry.size;
    this.#index.delete(name);
  }

  #exclusive<T>(action: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(action);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  #error(message: string, cause: unknown): CacheError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new CacheError(`${message}: ${reason}`, { backend: this.kind, cause });
  }
}

/** The file an entry's key is stored in: its SHA-256, so any key (slashes, `..`, 10 kB URLs) is a safe name. */
function fileName(key: string): string {
  return `${sha256Hex(key)}.cache`;
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
