import type { Clock } from '@threatlib/core/integration';

/** One record waiting for its batch. */
export interface PendingRecord {
  topic: string;
  key: string | undefined;
  value: Buffer;
  headers: Record<string, string>;
}

/** Batching options (the client's `enterprise.streamProcessing`). */
export interface BatchingOptions {
  enabled: boolean;
  batchSize: number;
  flushInterval: number;
}

interface Waiting {
  record: PendingRecord;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Collects produced records into batches and sends one batch at a time (the idempotent producer allows one request
 * in flight). A batch leaves when it holds `batchSize` records; with `enabled`, a partial batch leaves
 * `flushInterval` ms after its first record arrived; without, it leaves as soon as the previous batch was
 * acknowledged. Each `add` resolves when the broker acknowledged the batch its record went in.
 */
export class ProduceBatcher {
  readonly #send: (records: PendingRecord[]) => Promise<void>;
  readonly #options: BatchingOptions;
  readonly #clock: Clock;
  #queue: Waiting[] = [];
  /** Index of the first waiting record in `#queue` (taking a batch moves it; the array is compacted now and then). */
  #head = 0;
  #sending: Promise<void> | undefined;
  #timer: unknown;
  #timerSet = false;

  constructor(send: (records: PendingRecord[]) => Promise<void>, options: BatchingOptions, clock: Clock) {
    this.#send = send;
    this.#options = options;
    this.#clock = clock;
  }

  /** Records waiting for a batch or in the batch being sent. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  add(record: PendingRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ record, resolve, reject });
      this.#schedule();
    });
  }

  /** Sends everything waiting now, and resolves when it has all been acknowledged (or refused). */
  async flush(): Promise<void> {
    this.#clearTimer();
    while (this.pending > 0 || this.#sending) {
      if (!this.#sending) this.#sendNext();
      await this.#sending?.catch(() => undefined);
    }
  }

  #schedule(): void {
    if (this.#sending) return;
    if (this.pending >= this.#options.batchSize || !this.#options.enabled) {
      this.#sendNext();
      return;
    }
    if (!this.#timerSet && this.pending > 0) {
      this.#timerSet = true;
      this.#timer = this.#clock.setTimeout(() => {
        this.#timerSet = false;
        if (!this.#sending && this.pending > 0) this.#sendNext();
      }, this.#options.flushInterval);
    }
  }

  #sendNext(): void {
    this.#clearTimer();
    const end = Math.min(this.#queue.length, this.#head + this.#options.batchSize);
    const batch = this.#queue.slice(this.#head, end);
    this.#head = end;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 10_000) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (batch.length === 0) return;
    this.#sending = this.#send(batch.map((w) => w.record)).then(
      () => {
        for (const waiting of batch) waiting.resolve();
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
    this.#sending.finally(() => {
      this.#sending = undefined;
      this.#schedule();
    });
  }

  #clearTimer(): void {
    if (!this.#timerSet) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timerSet = false;
  }
}
