import type { Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';

/** How the storage integration batches the writes of the scan path. */
export interface BatchingOptions {
  /** Longest an item waits before its batch is written, in ms. */
  maxDelayMs: number;
  /** Most items in one write; a full batch is written at once. */
  maxBatch: number;
  /** Most items held (waiting and being written) while the server is slow or down; more are counted and dropped. */
  maxBuffered: number;
  /** First wait before a failed write is tried again, in ms; doubled each time up to {@link maxRetryDelayMs}. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

/** The defaults: 50 ms or 500 documents, 10,000 held, retries from 100 ms up to 5 s apart. */
export const DEFAULT_BATCHING: Readonly<BatchingOptions> = Object.freeze({
  maxDelayMs: 50,
  maxBatch: 500,
  maxBuffered: 10_000,
  retryDelayMs: 100,
  maxRetryDelayMs: 5_000,
});

/** What a {@link WriteBatcher} has done since it was made. */
export interface WriteBatcherStats {
  /** Items the server acknowledged. */
  written: number;
  /** Items held now, waiting or being written. */
  buffered: number;
  /**
   * Items that could not be kept: refused while the buffer was full, refused by the caller as invalid (`refuse`), or
   * still unwritten when the batcher stopped.
   */
  dropped: number;
  /** Write attempts that failed (each retried). */
  failedWrites: number;
  /** Batches written. */
  batches: number;
}

/** Options of {@link WriteBatcher}. */
export interface WriteBatcherOptions<T> extends BatchingOptions {
  clock: Clock;
  logger: Logger;
  /** What is being written, for log lines (`threat records`). */
  what: string;
  /** Writes one batch; resolves once the server acknowledged all of it. Called again with the same batch on failure. */
  write(batch: readonly T[]): Promise<void>;
}

const LOG_INTERVAL_MS = 60_000;

/**
 * Batches writes off the caller's path: `add` only queues (it never waits and never throws), and a batch is written
 * when `maxBatch` items wait or the oldest has waited `maxDelayMs`, one batch at a time, in order. A failed write is
 * retried with backoff, the items kept meanwhile, up to `maxBuffered`; an item past that is dropped, counted in
 * `stats.dropped` and logged (at most one line a minute, with the count), never silently. `stop()` writes what is
 * left once, and counts and logs what it could not write.
 */
export class WriteBatcher<T> {
  readonly #options: WriteBatcherOptions<T>;
  readonly #waiting: T[] = [];
  #inFlight = 0;
  #timer: unknown;
  #retryTimer: { resolve: () => void } | undefined;
  #pump: Promise<void> | undefined;
  #stopping = false;
  #stats = { written: 0, dropped: 0, failedWrites: 0, batches: 0 };
  #unreportedDrops = 0;
  #lastDropLine: number | undefined;
  #lastFailureLine: number | undefined;

  constructor(options: WriteBatcherOptions<T>) {
    this.#options = options;
  }

  get stats(): WriteBatcherStats {
    return { ...this.#stats, buffered: this.#waiting.length + this.#inFlight };
  }

  /** Queues an item; false when it was dropped because `maxBuffered` items are held already (or after `stop()`). */
  add(item: T): boolean {
    if (this.#stopping || this.#waiting.length + this.#inFlight >= this.#options.maxBuffered) {
      this.#drop(1, this.#stopping ? 'the storage integration is stopping' : 'the write buffer is full');
      return false;
    }
    this.#waiting.push(item);
    if (this.#pump) return true;
    if (this.#waiting.length >= this.#options.maxBatch) this.#startPump();
    else if (this.#timer === undefined) {
      this.#timer = this.#options.clock.setTimeout(() => {
        this.#timer = undefined;
        this.#startPump();
      }, this.#options.maxDelayMs);
    }
    return true;
  }

  /**
   * Counts `count` items the caller could not queue (a record that is not one) as dropped, and logs why at error
   * level: a refusal is a bug to fix, never a silent loss.
   */
  refuse(count: number, reason: string): void {
    this.#drop(count, reason, 'error');
  }

  /** Resolves once everything queued so far is written (retrying as long as it takes, until `stop()`). */
  async flush(): Promise<void> {
    this.#clearTimer();
    while (this.#waiting.length > 0 || this.#pump) {
      this.#startPump();
      await this.#pump;
    }
  }

  /**
   * Writes what is left, each batch once more without waiting to retry; what still fails is dropped, counted and
   * logged. Clears every timer. `add` drops (and counts) from then on.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#clearTimer();
    this.#retryTimer?.resolve();
    if (this.#waiting.length > 0 || this.#pump) {
      this.#startPump();
      await this.#pump;
    }
  }

  #startPump(): void {
    if (this.#pump) return;
    this.#clearTimer();
    this.#pump = this.#run().finally(() => {
      this.#pump = undefined;
      // Items queued during the last write that are not yet due wait for their own timer.
      if (this.#waiting.length > 0 && !this.#stopping) {
        if (this.#waiting.length >= this.#options.maxBatch) this.#startPump();
        else if (this.#timer === undefined) {
          this.#timer = this.#options.clock.setTimeout(() => {
            this.#timer = undefined;
            this.#startPump();
          }, this.#options.maxDelayMs);
        }
      }
    });
  }

  async #run(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.#options.maxBatch);
      this.#inFlight = batch.length;
      try {
        await this.#writeWithRetries(batch);
      } finally {
        this.#inFlight = 0;
      }
      if (!this.#stopping && this.#waiting.length < this.#options.maxBatch) return;
    }
  }

  async #writeWithRetries(batch: T[]): Promise<void> {
    let delay = this.#options.retryDelayMs;
    for (;;) {
      try {
        await this.#options.write(batch);
        this.#stats.written += batch.length;
        this.#stats.batches += 1;
        return;
      } catch (error) {
        this.#stats.failedWrites += 1;
        if (this.#stopping) {
          this.#drop(batch.length, `the write failed while stopping: ${messageOf(error)}`, 'error');
          return;
        }
        this.#logFailure(batch.length, error, delay);
        await this.#wait(delay);
        delay = Math.min(delay * 2, this.#options.maxRetryDelayMs);
      }
    }
  }

  /** Waits `ms` on the clock before a retry; `stop()` ends the wait at once (and clears its timer). */
  #wait(ms: number): Promise<void> {
    const { clock } = this.#options;
    return new Promise((resolve) => {
      const handle = clock.setTimeout(() => {
        this.#retryTimer = undefined;
        resolve();
      }, ms);
      this.#retryTimer = {
        resolve: () => {
          clock.clearTimeout(handle);
          this.#retryTimer = undefined;
          resolve();
        },
      };
    });
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #logFailure(items: number, error: unknown, retryInMs: number): void {
    const now = this.#options.clock.now();
    if (this.#lastFailureLine !== undefined && now - this.#lastFailureLine < LOG_INTERVAL_MS) return;
    this.#lastFailureLine = now;
    this.#options.logger.warn(
      { err: error, items, buffered: this.stats.buffered, failedWrites: this.#stats.failedWrites, retryInMs },
      `could not write ${items} ${this.#options.what}; kept and tried again (${this.stats.buffered} held, at most ${this.#options.maxBuffered}): ${messageOf(error)}`,
    );
  }

  #drop(count: number, reason: string, level: 'warn' | 'error' = 'warn'): void {
    this.#stats.dropped += count;
    this.#unreportedDrops += count;
    const now = this.#options.clock.now();
    if (level === 'warn' && this.#lastDropLine !== undefined && now - this.#lastDropLine < LOG_INTERVAL_MS) return;
    this.#lastDropLine = now;
    this.#options.logger[level](
      { dropped: this.#unreportedDrops, droppedTotal: this.#stats.dropped, maxBuffered: this.#options.maxBuffered },
      `${this.#unreportedDrops} ${this.#options.what} could not be kept (${this.#stats.dropped} in all): ${reason}`,
    );
    this.#unreportedDrops = 0;
  }
}

function messageOf(error: unknown): string {
  return (error as Error | undefined)?.message ?? String(error);
}
