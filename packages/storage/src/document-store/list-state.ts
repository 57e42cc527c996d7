import { randomUUID } from 'node:crypto';
import type { ListState, ListStateStore } from '@threatlib/core/lists';
import type { Collection } from 'mongodb';
import { StorageError } from '../errors/storage-error.js';

/**
 * A document of the `listStates` collection: a list's head (`kind: 'head'`, `_id` the list's name), naming the
 * generation its state is in and how many chunks that has, or one chunk of a generation's JSON text.
 */
export interface ListStateDocument {
  _id: string;
  list: string;
  kind: 'head' | 'chunk';
  generation: string;
  /** A head's count of chunks. */
  chunks?: number;
  /** A chunk's 0-based place. */
  index?: number;
  /** A chunk's part of the state's JSON text. */
  text?: string;
  savedAt?: Date;
}

/** What a {@link DocumentListState} needs from its document store (as the webhook outbox does). */
export interface ListStateAccess {
  collection(): Promise<Collection<ListStateDocument>>;
  run<T>(operation: 'store' | 'query', work: () => Promise<T>): Promise<T>;
}

/** Characters of JSON in one chunk: at most 8 MB in UTF-8, half of MongoDB's 16 MB document limit. */
const CHUNK_CHARS = 2 * 1024 * 1024;
const NAME = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The state of a list fed over the network (a TAXII list's position and indicators; core's `ListStateStore`) on a
 * document store, which instances of an application share. A state larger than one document allows is split in
 * chunks; a save writes a new generation of chunks, then points the list's head at it, then removes the older
 * generations, so a reader (or a crash at any step) sees the old state or the new one, whole. Writes wait for a
 * majority of the replica set's journals.
 */
export class DocumentListState implements ListStateStore {
  readonly where: string;
  readonly #name: string;
  readonly #access: ListStateAccess;

  /** @throws {StorageError} when `name` is not 1 to 128 letters, digits, `.`, `_`, `:` or `-`. */
  constructor(name: string, access: ListStateAccess, collection: string) {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new StorageError(
        'mongodb',
        'store',
        'list state: expected a name of 1 to 128 letters, digits, ".", "_", ":" or "-"',
        {
          target: 'listStates',
          isRetryable: false,
        },
      );
    }
    this.#name = name;
    this.#access = access;
    this.where = `the document store's ${collection} collection, as "${name}"`;
  }

  async load(): Promise<ListState | undefined> {
    const collection = await this.#access.collection();
    const head = await this.#access.run('query', () => collection.findOne({ _id: this.#name, kind: 'head' }));
    if (head === null) return undefined;
    const chunks = await this.#access.run('query', () =>
      collection
        .find({ list: this.#name, kind: 'chunk', generation: head.generation }, { sort: { index: 1 } })
        .toArray(),
    );
    if (
      chunks.length !== head.chunks ||
      chunks.some((chunk, i) => chunk.index !== i || typeof chunk.text !== 'string')
    ) {
      throw new StorageError('mongodb', 'query', `list state "${this.#name}": its chunks are not all there`, {
        target: 'listStates',
        isRetryable: false,
      });
    }
    return JSON.parse(chunks.map((chunk) => chunk.text).join('')) as ListState;
  }

  async save(state: ListState): Promise<void> {
    const text = JSON.stringify(state);
    const generation = randomUUID();
    const chunks: ListStateDocument[] = [];
    for (let at = 0, index = 0; at < text.length || index === 0; at += CHUNK_CHARS, index += 1) {
      chunks.push({
        _id: `${this.#name}\n${generation}\n${index}`,
        list: this.#name,
        kind: 'chunk',
        generation,
        index,
        text: text.slice(at, at + CHUNK_CHARS),
      });
    }
    const durable = { writeConcern: { w: 'majority' as const, j: true } };
    const collection = await this.#access.collection();
    for (const chunk of chunks) await this.#access.run('store', () => collection.insertOne(chunk, durable));
    await this.#access.run('store', () =>
      collection.replaceOne(
        { _id: this.#name },
        { list: this.#name, kind: 'head', generation, chunks: chunks.length, savedAt: new Date() },
        { ...durable, upsert: true },
      ),
    );
    await this.#access.run('store', () =>
      collection.deleteMany({ list: this.#name, kind: 'chunk', generation: { $ne: generation } }),
    );
  }
}
