import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import { StorageError } from '../errors/storage-error.js';
import { DocumentRejectedError, describeFailure, isRetryableFailure, storageFailure } from './elasticsearch-errors.js';

/** Where a document was indexed. */
export interface IndexedDocument {
  /** The concrete (daily) index: `threats-2026.03.01`. */
  index: string;
  id: string;
}

/** A document ready for a bulk request: where it goes and its source, already serialised. */
export interface BulkDocument {
  /** The index key it was given under (`threats`), for errors. */
  key: string;
  /** The concrete index. */
  index: string;
  id: string;
  /** The source as JSON. */
  json: string;
}

/** What a {@link BulkIndexer} counts. */
export interface BulkIndexerStats {
  /** Documents waiting for a batch. */
  queued: number;
  /** Bulk requests in flight. */
  inFlight: number;
  /** Documents Elasticsearch acknowledged. */
  indexed: number;
  /** Documents Elasticsearch refused (each reported to its caller with the reason). */
  rejected: number;
  /** Documents that could not be sent (no answer after the retries, or the store stopped); each reported. */
  failed: number;
  /** Bulk requests tried again after failing as a whole. */
  retriedRequests: number;
  /** Documents refused at once because `maxQueued` documents were already waiting. */
  refusedQueueFull: number;
}

/** How a {@link BulkIndexer} batches and retries. */
export interface BulkIndexerOptions {
  client: Client;
  clock: Clock;
  logger: Logger;
  batchSize: number;
  flushBytes: number;
  flushIntervalMs: number;
  concurrency: number;
  retries: number;
  retryDelayMs: number;
  maxQueued: number;
  /** Called with the index keys of documents just acknowledged, before their callers hear of it. */
  onAcknowledged(keys: ReadonlySet<string>): void;
}

/**
 * Hears how each document of an `add` ended: `error` undefined when Elasticsearch acknowledged it (at `index`/`id`
 * of its `BulkDocument`), else a `DocumentRejectedError` or `StorageError`. Called once per document.
 */
export type SettleDocument = (position: number, error: unknown) => void;

interface QueuedDocument extends BulkDocument {
  bytes: number;
  enqueuedAt: number;
  seq: number;
  /** Its position in the `add` it came with. */
  position: number;
  settle: SettleDocument;
}

/** Bytes the action line of one document adds to a bulk body, besides the index name and id. */
const ACTION_OVERHEAD = 40;
/** The bulk helper splits what it is given at `flushBytes`: one batch must stay one request. */
const ONE_REQUEST = Number.MAX_SAFE_INTEGER;

/**
 * Gathers documents into bulk requests and sends them with the client's bulk helper (`client.helpers.bulk`).
 *
 * A batch is sent when it holds `batchSize` documents or `flushBytes` bytes, or when its first document has waited
 * `flushIntervalMs` (on the injected clock), with at most `concurrency` requests in flight. Each batch is one run of
 * the helper, which zips Elasticsearch's per-item answers with the documents, sends documents answered 429 again
 * (`retries` times, `retryDelayMs` apart) and reports every other refused document through `onDrop`: that document's
 * caller gets a {@link DocumentRejectedError} with Elasticsearch's reason. A request that fails as a whole (no answer,
 * 502/503/504) is tried again `retries` times with a doubling delay; the documents carry their ids, so a document that
 * was indexed before the failure is overwritten, never doubled. Whatever cannot be sent is reported to its caller as
 * a `StorageError`: nothing is dropped silently.
 *
 * (The helper's own batching is not used: its interval restarts with every document, so a steady trickle would wait
 * until `flushBytes`, and one failed request ends a helper run for everything after it.)
 */
export class BulkIndexer {
  readonly #options: BulkIndexerOptions;
  #queue: QueuedDocument[] = [];
  #head = 0;
  #queuedBytes = 0;
  #seq = 0;
  /** Documents up to this sequence number are sent without waiting for their batch to fill. */
  #flushThrough = 0;
  #inFlight = 0;
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;
  #stopping = false;
  readonly #idle = new Set<() => void>();
  readonly #sleepers = new Set<() => void>();
  readonly #stats = { indexed: 0, rejected: 0, failed: 0, retriedRequests: 0, refusedQueueFull: 0 };

  constructor(options: BulkIndexerOptions) {
    this.#options = options;
  }

  get stats(): BulkIndexerStats {
    return { queued: this.#queue.length - this.#head, inFlight: this.#inFlight, ...this.#stats };
  }

  /**
   * Queues documents; `settle` hears of each once Elasticsearch acknowledged or refused it, or it could not be sent.
   * (A callback rather than a promise per document: a bulk of 50,000 would otherwise allocate 50,000 promises.)
   *
   * @throws {StorageError} (nothing queued) when the indexer is stopped, or when more than `maxQueued` documents would
   *   be waiting (retryable: Elasticsearch is slow or unreachable).
   */
  add(documents: readonly BulkDocument[], settle: SettleDocument): void {
    if (this.#stopping) {
      throw new StorageError('elasticsearch', 'index', 'the search index is stopped', {
        target: documents[0]?.key,
        isRetryable: false,
      });
    }
    const waiting = this.#queue.length - this.#head;
    if (waiting + documents.length > this.#options.maxQueued) {
      this.#stats.refusedQueueFull += documents.length;
      throw new StorageError(
        'elasticsearch',
        'index',
        `${documents.length} document(s) refused: ${waiting} are already waiting to be sent (maxQueued ${this.#options.maxQueued}); Elasticsearch is slow or unreachable`,
        { target: documents[0]?.key, isRetryable: true },
      );
    }
    const now = this.#options.clock.now();
    for (let position = 0; position < documents.length; position += 1) {
      const { key, index, id, json } = documents[position] as BulkDocument;
      const bytes = json.length + index.length + id.length + ACTION_OVERHEAD;
      this.#queuedBytes += bytes;
      this.#queue.push({ key, index, id, json, bytes, enqueuedAt: now, seq: ++this.#seq, position, settle });
    }
    this.#pump();
  }

  /** Queues documents and resolves, once each has been settled, with each one's error (undefined: acknowledged). */
  settled(documents: readonly BulkDocument[], flush = false): Promise<Array<unknown>> {
    const errors: unknown[] = new Array(documents.length);
    if (documents.length === 0) return Promise.resolve(errors);
    let remaining = documents.length;
    return new Promise((resolve) => {
      this.add(documents, (position, error) => {
        errors[position] = error;
        remaining -= 1;
        if (remaining === 0) resolve(errors);
      });
      // The storage integration batches already: its records go now rather than wait for the interval.
      if (flush) void this.flush();
    });
  }

  /** Sends what is queued now without waiting for batches to fill; resolves once nothing is queued or in flight. */
  async flush(): Promise<void> {
    this.#flushThrough = this.#seq;
    this.#pump();
    if (this.#queue.length - this.#head === 0 && this.#inFlight === 0) return;
    await new Promise<void>((resolve) => this.#idle.add(resolve));
  }

  /**
   * Sends what is queued (one more try each, no waiting between retries), refuses what comes after, and resolves
   * once every document has been settled.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const wake of this.#sleepers) wake();
    this.#sleepers.clear();
    await this.flush();
    this.#clearTimer();
  }

  #pump(): void {
    const { batchSize, flushBytes, flushIntervalMs, concurrency, clock } = this.#options;
    while (this.#inFlight < concurrency && this.#head < this.#queue.length) {
      const first = this.#queue[this.#head] as QueuedDocument;
      const full = this.#queue.length - this.#head >= batchSize || this.#queuedBytes >= flushBytes;
      const due = first.seq <= this.#flushThrough || clock.now() - first.enqueuedAt >= flushIntervalMs;
      if (!full && !due) break;
      const batch = this.#take(batchSize, flushBytes);
      this.#inFlight += 1;
      void this.#send(batch).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
      });
    }
    if (this.#head === this.#queue.length && this.#inFlight === 0) {
      for (const resolve of this.#idle) resolve();
      this.#idle.clear();
    }
    this.#armTimer();
  }

  /** Takes the next batch off the queue: up to `batchSize` documents and `flushBytes` bytes, at least one. */
  #take(batchSize: number, flushBytes: number): QueuedDocument[] {
    const batch: QueuedDocument[] = [];
    let bytes = 0;
    while (this.#head < this.#queue.length && batch.length < batchSize) {
      const next = this.#queue[this.#head] as QueuedDocument;
      if (batch.length > 0 && bytes + next.bytes > flushBytes) break;
      batch.push(next);
      bytes += next.bytes;
      this.#head += 1;
    }
    this.#queuedBytes -= bytes;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return batch;
  }

  /** A timer for when the oldest queued document is due, unless every request slot is busy (a reply pumps then). */
  #armTimer(): void {
    const { clock, flushIntervalMs, concurrency } = this.#options;
    const first = this.#queue[this.#head];
    if (first === undefined || this.#inFlight >= concurrency) {
      this.#clearTimer();
      return;
    }
    const at = first.enqueuedAt + flushIntervalMs;
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    this.#clearTimer();
    this.#timerAt = at;
    this.#timer = clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, at - clock.now()),
    );
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  /** Sends one batch until every document in it is settled. */
  async #send(batch: QueuedDocument[]): Promise<void> {
    const { client, retries, retryDelayMs, logger } = this.#options;
    let pending = batch;
    for (let attempt = 0; ; attempt += 1) {
      const dropped = new Map<string, { status: number; error: { type?: unknown; reason?: unknown } | null }>();
      try {
        await client.helpers.bulk<QueuedDocument>({
          datasource: pending,
          onDocument: (document) => [{ index: { _index: document.index, _id: document.id } }, document.json],
          flushBytes: ONE_REQUEST,
          concurrency: 1,
          retries,
          wait: retryDelayMs,
          onDrop: (drop) => {
            const id = (drop.operation as { index: { _id: string } }).index._id;
            // The helper reports a document still answered 429 after its retries without the error itself.
            const error = drop.error ?? {
              type: 'too_many_requests',
              reason: `Elasticsearch was still too busy (429) after ${retries} retries`,
            };
            dropped.set(id, { status: drop.status, error });
          },
        });
        this.#settle(pending, dropped);
        return;
      } catch (error) {
        // The request failed as a whole. What was refused in an earlier round of 429s stays refused; the rest is
        // sent again (their ids make that idempotent) or reported.
        const refused = pending.filter((document) => dropped.has(document.id));
        this.#settle(refused, dropped, false);
        pending = pending.filter((document) => !dropped.has(document.id));
        const retry = isRetryableFailure(error) && attempt < retries && !this.#stopping;
        logger.warn(
          { documents: pending.length, attempt: attempt + 1, retry, reason: describeFailure(error) },
          'elasticsearch: a bulk request failed',
        );
        if (!retry) {
          const failure = this.#stopping
            ? new StorageError(
                'elasticsearch',
                'index',
                `the search index stopped before Elasticsearch acknowledged ${pending.length} document(s): ${storageFailure('index', undefined, error).message}`,
                { target: pending[0]?.key, isRetryable: true, cause: error },
              )
            : storageFailure('index', pending[0]?.key, error);
          this.#stats.failed += pending.length;
          for (const document of pending) document.settle(document.position, failure);
          return;
        }
        this.#stats.retriedRequests += 1;
        await this.#sleep(retryDelayMs * 2 ** attempt);
      }
    }
  }

  /** Resolves the acknowledged documents of a finished run (unless only refusals are settled) and rejects the refused. */
  #settle(
    documents: readonly QueuedDocument[],
    dropped: ReadonlyMap<string, { status: number; error: { type?: unknown; reason?: unknown } | null }>,
    acknowledge = true,
  ): void {
    const keys = new Set<string>();
    for (const document of documents) if (!dropped.has(document.id)) keys.add(document.key);
    if (acknowledge && keys.size > 0) this.#options.onAcknowledged(keys);
    for (const document of documents) {
      const drop = dropped.get(document.id);
      if (drop === undefined) {
        if (!acknowledge) continue;
        this.#stats.indexed += 1;
        document.settle(document.position, undefined);
      } else {
        this.#stats.rejected += 1;
        const error = new DocumentRejectedError(document.key, { index: document.index, id: document.id, ...drop });
        document.settle(document.position, error);
      }
    }
  }

  /** Waits `ms` on the clock, or less when the indexer stops. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#options.clock.clearTimeout(timer);
        this.#sleepers.delete(wake);
        resolve();
      };
      const timer = this.#options.clock.setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }
}
