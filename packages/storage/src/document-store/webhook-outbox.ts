// The outbox contract is core's (`@threatlib/core/integration`): this package and `@threatlib/webhooks` (which
// delivers) both implement or call it, and neither depends on the other.
import type { Logger } from '@threatlib/core';
import { type WebhookOutbox, type WebhookOutboxEntry, webhookOutboxEntry } from '@threatlib/core/integration';
import type { Collection } from 'mongodb';
import { StorageError } from '../errors/storage-error.js';

/** One outgoing webhook delivery waiting in an outbox: core's `WebhookOutboxEntry`. */
export type { WebhookOutboxEntry } from '@threatlib/core/integration';

/** The contract `@threatlib/webhooks` calls an outbox through: core's `WebhookOutbox`. */
export type WebhookOutboxStore = WebhookOutbox;

/** A delivery as stored: the entry's fields beside the outbox it belongs to, under `<outbox>\n<key>`. */
export interface WebhookOutboxDocument extends WebhookOutboxEntry {
  _id: string;
  outbox: string;
}

/** What a {@link DocumentWebhookOutbox} needs from its document store. */
export interface WebhookOutboxAccess {
  /**
   * The collection. With `connect`, connects the store first if it has not (opening the outbox may come before the
   * storage integration's own start); without, refuses when the store is not running (a write after the storage
   * integration stopped must not open a new connection).
   */
  collection(connect: boolean): Promise<Collection<WebhookOutboxDocument>>;
  /** Runs a driver call, turning its failure into a `StorageError`. */
  run<T>(operation: 'store' | 'query' | 'index', work: () => Promise<T>): Promise<T>;
  logger: Logger;
}

const NAME = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The webhooks' outbox on a document store: each delivery a document of the `webhookOutbox` collection, upserted by
 * its key when it is written (before the first attempt) and again after each failed attempt (its count and next
 * time), deleted when it was delivered or finally failed. `open()` lists the deliveries of this outbox, which a
 * manager resumes: after a restart, on this or another machine, with the same `webhook-id`.
 *
 * Each write resolves once a majority of the replica set has it in its journal (`w: 'majority', j: true`; a single
 * server, once it has), so a delivery whose first attempt was made survives a crash of the server as of the process,
 * and a failover. Several processes may share one outbox
 * name: each resumes, at its start, what is waiting then, so a delivery may be sent by two of them (at least once,
 * never lost; receivers drop the duplicate by its `webhook-id`); give each its own name to avoid that.
 */
export class DocumentWebhookOutbox implements WebhookOutboxStore {
  /** The outbox's name: the webhooks integration's (`webhooks`). */
  readonly name: string;
  readonly #access: WebhookOutboxAccess;

  /** @throws {StorageError} when `name` is not 1 to 128 letters, digits, `.`, `_`, `:` or `-`. */
  constructor(name: string, access: WebhookOutboxAccess) {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new StorageError(
        'mongodb',
        'store',
        'webhook outbox: expected a name of 1 to 128 letters, digits, ".", "_", ":" or "-"',
        {
          target: 'webhookOutbox',
          isRetryable: false,
        },
      );
    }
    this.name = name;
    this.#access = access;
  }

  /** Connects the store if needed, indexes the collection by outbox, and resolves with this outbox's deliveries. */
  async open(): Promise<WebhookOutboxEntry[]> {
    const collection = await this.#access.collection(true);
    await this.#access.run('index', () => collection.createIndex({ outbox: 1 }, { name: 'threatlib_outbox' }));
    const documents = await this.#access.run('query', () =>
      collection.find({ outbox: this.name }, { sort: { createdAt: 1 } }).toArray(),
    );
    const entries: WebhookOutboxEntry[] = [];
    let skipped = 0;
    for (const document of documents) {
      const entry = webhookOutboxEntry(document);
      if (entry) entries.push(entry);
      else skipped++;
    }
    if (skipped > 0) {
      this.#access.logger.warn(
        { outbox: this.name, skipped },
        `webhook outbox "${this.name}": ${skipped} documents are not deliveries and were left alone`,
      );
    }
    return entries;
  }

  /** Adds the delivery or replaces the one with its key; resolves once the server has it in its journal. */
  async put(entry: WebhookOutboxEntry): Promise<void> {
    const document = toDocument(this.name, entry);
    const collection = await this.#access.collection(false);
    await this.#access.run('store', () =>
      collection.replaceOne({ _id: document._id }, document, {
        upsert: true,
        writeConcern: { w: 'majority', j: true },
      }),
    );
  }

  async remove(key: string): Promise<void> {
    const collection = await this.#access.collection(false);
    await this.#access.run('store', () => collection.deleteOne({ _id: documentId(this.name, key) }));
  }

  /** Nothing to release: the connection is the storage integration's, closed when it stops. */
  async close(): Promise<void> {}
}

function documentId(outbox: string, key: string): string {
  return `${outbox}\n${key}`;
}

function toDocument(outbox: string, entry: WebhookOutboxEntry): WebhookOutboxDocument {
  const checked = webhookOutboxEntry(entry);
  if (checked === undefined) {
    throw new StorageError(
      'mongodb',
      'store',
      'webhook outbox: the entry is not a delivery (key, messageId, endpoint, event, body, createdAt, attempts, nextAttemptAt)',
      {
        target: 'webhookOutbox',
        isRetryable: false,
      },
    );
  }
  return { _id: documentId(outbox, checked.key), outbox, ...checked };
}
