import type { Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';

/** The field every expiring record carries: `scanDate` + `ttl` seconds. */
export const EXPIRY_FIELD = 'expiresAt';
/** The name of the TTL index (MongoDB) or plain index (elsewhere) on {@link EXPIRY_FIELD}. */
export const EXPIRY_INDEX = 'threatlib_expiresAt';

/**
 * How expired records leave the store: `ttl-index`, the server deletes them (MongoDB's TTL monitor, about once a
 * minute); `sweeper`, the store deletes them on an interval because the server cannot. Either way reads leave out
 * what has expired.
 */
export type ExpiryMode = 'ttl-index' | 'sweeper';

/** What {@link prepareExpiry} found out, and why. */
export interface ExpiryDetection {
  mode: ExpiryMode;
  reason: string;
}

/** The part of a driver collection {@link prepareExpiry} uses. */
export interface IndexableCollection {
  createIndex(keys: Record<string, 1 | -1>, options: { name: string; expireAfterSeconds?: number }): Promise<string>;
  listIndexes(): { toArray(): Promise<Array<{ name?: string; expireAfterSeconds?: unknown }>> };
}

/** MongoDB's `NotImplemented`: FerretDB 1.x answers it to a TTL index. */
const NOT_IMPLEMENTED = 238;
/** `IndexOptionsConflict`, `IndexKeySpecsConflict`: an index of that name or keys exists with other options. */
const INDEX_CONFLICT = new Set([85, 86]);

/**
 * Makes the index on `expiresAt` and finds out whether the server expires records by itself: it asks for a TTL index
 * (`expireAfterSeconds: 0`, so a record goes at its own `expiresAt`) and reads the index back. A server that answers
 * "not implemented" (FerretDB 1.x, code 238) gets a plain index instead, and one that accepts the option but does
 * not keep it (a server that ignores it silently) is found out by the read-back; both mean `sweeper`.
 *
 * @throws the driver's error for any other failure (the server is down, the user may not create indexes).
 */
export async function prepareExpiry(collection: IndexableCollection): Promise<ExpiryDetection> {
  try {
    await collection.createIndex({ [EXPIRY_FIELD]: 1 }, { name: EXPIRY_INDEX, expireAfterSeconds: 0 });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === NOT_IMPLEMENTED) {
      await collection.createIndex({ [EXPIRY_FIELD]: 1 }, { name: EXPIRY_INDEX });
      return { mode: 'sweeper', reason: 'the server answered NotImplemented (238) to a TTL index' };
    }
    if (typeof code === 'number' && INDEX_CONFLICT.has(code)) {
      return {
        mode: 'sweeper',
        reason: `an index on ${EXPIRY_FIELD} exists with other options (code ${code}); drop it to get a TTL index`,
      };
    }
    throw error;
  }
  const indexes = await collection.listIndexes().toArray();
  const index = indexes.find((candidate) => candidate.name === EXPIRY_INDEX);
  if (index?.expireAfterSeconds === 0) return { mode: 'ttl-index', reason: 'the server keeps a TTL index' };
  return { mode: 'sweeper', reason: 'the server accepted a TTL index but did not keep expireAfterSeconds' };
}

/** Options of {@link ExpirySweeper}. */
export interface ExpirySweeperOptions {
  clock: Clock;
  intervalMs: number;
  /** Deletes what expired by `now`; resolves with how many. */
  sweep(now: Date): Promise<number>;
  logger: Logger;
}

/**
 * Deletes expired records every `intervalMs` on the clock, for servers without a TTL index. A failed sweep is
 * logged and counted, and the next one runs as planned. `stop()` clears the timer and waits for a sweep under way.
 */
export class ExpirySweeper {
  readonly #options: ExpirySweeperOptions;
  #timer: unknown;
  #running: Promise<void> | undefined;
  #stopped = true;
  /** Sweeps run, records deleted, sweeps that failed. */
  readonly stats = { sweeps: 0, deleted: 0, failures: 0 };

  constructor(options: ExpirySweeperOptions) {
    this.#options = options;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Resolves once the sweep under way (if any) has ended. */
  async idle(): Promise<void> {
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#options.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#run().finally(() => {
        this.#running = undefined;
        this.#schedule();
      });
    }, this.#options.intervalMs);
  }

  async #run(): Promise<void> {
    const { clock, sweep, logger } = this.#options;
    try {
      const deleted = await sweep(new Date(clock.now()));
      this.stats.sweeps += 1;
      this.stats.deleted += deleted;
      if (deleted > 0) logger.debug({ deleted }, `expiry sweep deleted ${deleted} expired record(s)`);
    } catch (error) {
      this.stats.failures += 1;
      logger.warn(
        { err: error, failures: this.stats.failures },
        `expiry sweep failed (expired records are still never returned; the next sweep tries again): ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }
}
