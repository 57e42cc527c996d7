// The document store: its client, lifecycle and health, the records API (`store`, `query`), the `ThreatStorage`
// contract, and the webhook outbox and list state it hands out.
import { type Logger, silentLogger, ThreatlibError, ValidationError } from '@threatlib/core';
import {
  type Clock,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  type IntegrationHealth,
  inspectView,
  redactedView,
  systemClock,
} from '@threatlib/core/integration';
import {
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Document,
  type Filter,
  MongoBulkWriteError,
  MongoClient,
} from 'mongodb';
import { parseCampaignReports } from '../contract/campaign-schema.js';
import { ttlProblem } from '../contract/record-ttl.js';
import { parseSightings } from '../contract/sighting-schema.js';
import type {
  CampaignReport,
  IndicatorHistory,
  IndicatorSighting,
  StoredCampaign,
  StoredThreat,
  StoredThreatInput,
  ThreatStorage,
} from '../contract/threat-storage.js';
import { StorageError, type StorageOperation } from '../errors/storage-error.js';
import { checkFilter, type StorageFilter } from '../filter/filter-allowlist.js';
import { type CampaignDocument, campaignUpserts, toStoredCampaign } from './campaign-record.js';
import { type AlertDocument, DocumentAlertStore } from './document-alert-store.js';
import {
  type CollectionKey,
  type DocumentStoreOptions,
  type DocumentStoreRuntime,
  parseDocumentStoreOptions,
  type ResolvedDocumentStoreOptions,
} from './document-store-options.js';
import { driverError, messageOf, onlyDuplicates } from './driver-errors.js';
import { EXPIRY_FIELD, type ExpiryDetection, ExpirySweeper, prepareExpiry } from './expiry.js';
import { type IndicatorDocument, sightingUpserts, toIndicatorHistory } from './indicator-history.js';
import { DocumentListState, type ListStateDocument } from './list-state.js';
import { type DocumentQueryOptions, queryLimit, querySort } from './query-options.js';
import { genericDocument, recordCollection } from './record-collection.js';
import { fromDocument, fromThreatDocument, type ThreatDocument, threatDocument } from './threat-document.js';
import { writeUpserts } from './upsert-batches.js';
import { DocumentWebhookOutbox, type WebhookOutboxDocument } from './webhook-outbox.js';

export type { DocumentStoreRuntime } from './document-store-options.js';
export type { DocumentQueryOptions } from './query-options.js';

/** A document as this store writes it: its id is a string (the record's `id`). */
type StoredDocument = { _id: string } & Record<string, unknown>;

/**
 * The document store: threat records, campaigns, one history record per indicator and the client's alerts in a
 * MongoDB database (or a MongoDB wire-protocol server such as FerretDB), on the official `mongodb` driver.
 *
 * Records expire `ttl` seconds after `scanDate` (`expiresAt`): a TTL index deletes them where the server has one
 * (MongoDB), found out at start; elsewhere (FerretDB 1.x) a sweeper deletes them every `sweepIntervalMs`. Either way
 * `query` never returns an expired record. Filters are checked against an allowlist of operators before anything is
 * sent (see `checkFilter`): `$where`, `$function`, `$expr`, `$accumulator` and unknown operators are refused.
 *
 * The first call connects and prepares the collections (indexes, expiry); `start()` does it up front, `stop()`
 * closes the connections and the sweeper's timer.
 *
 * @example
 * ```ts
 * const storage = new DocumentStoreStorage({
 *   uri: 'mongodb://127.0.0.1:27017',
 *   database: 'threat_intel',
 *   collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
 * });
 * await storage.store('threats', { indicator: 'malicious.example', results, scanDate: new Date(), ttl: 86_400 });
 * const high = await storage.query('threats', {
 *   'results.confidence': { $gte: 80 },
 *   scanDate: { $gte: new Date(Date.now() - 7 * 86_400_000) },
 * });
 * await storage.stop();
 * ```
 */
export class DocumentStoreStorage implements ThreatStorage {
  readonly backend = 'mongodb';
  readonly #options: ResolvedDocumentStoreOptions;
  #shownOptions: ResolvedDocumentStoreOptions | undefined;
  readonly #client: MongoClient;
  /** Core's alert store contract on the `alerts` collection. */
  readonly alerts: DocumentAlertStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #db: Db;
  readonly #sweeper: ExpirySweeper;
  #ready: Promise<void> | undefined;
  #expiry: ExpiryDetection | undefined;
  /** The history and campaign writes under way, one after another (see `recordSightings`). */
  #upserts: Promise<void> = Promise.resolve();

  /**
   * @throws {ConfigurationError} `Configuration invalid: <option>: <reason>` naming each invalid option.
   */
  constructor(options: DocumentStoreOptions, runtime: DocumentStoreRuntime = {}) {
    this.#options = parseDocumentStoreOptions(options, runtime.optionsPath);
    this.#clock = runtime.clock ?? systemClock;
    this.#logger = runtime.logger ?? silentLogger;
    this.#client = new MongoClient(this.#options.uri, {
      serverSelectionTimeoutMS: this.options.timeoutMs,
      connectTimeoutMS: this.options.timeoutMs,
      socketTimeoutMS: this.options.operationTimeoutMs,
      appName: 'threatlib',
      ...runtime.driverOptions,
    });
    this.#db = this.client.db(this.options.database);
    this.#sweeper = new ExpirySweeper({
      clock: this.#clock,
      intervalMs: this.options.sweepIntervalMs,
      sweep: (now) => this.#sweep(now),
      logger: this.#logger,
    });
    this.alerts = new DocumentAlertStore({
      collection: async () => {
        await this.start();
        return this.#collection<AlertDocument>('alerts');
      },
      run: (operation, work) => this.#run(operation, 'alerts', work),
      now: () => new Date(this.#clock.now()),
    });
  }

  /**
   * The options in force, defaults filled in, with the password of the connection string shown as `[redacted]`
   * (`mongodb://user:[redacted]@host`): the store keeps its credentials to itself, so that logging it shows none.
   */
  get options(): ResolvedDocumentStoreOptions {
    this.#shownOptions ??= redactedView(this.#options);
    return this.#shownOptions;
  }

  /**
   * The driver's client, for what this class does not cover (and for command monitoring). It holds the credentials
   * of the connection string: it is not part of what the store shows (`toJSON`, `util.inspect`), so do not log it.
   */
  get client(): MongoClient {
    return this.#client;
  }

  /** What `JSON.stringify` writes of the store: its back end and redacted options. */
  toJSON(): { backend: 'mongodb'; options: ResolvedDocumentStoreOptions } {
    return { backend: this.backend, options: this.options };
  }

  /** What `util.inspect` and `console.log` show of the store: {@link toJSON}'s view, never a password. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('DocumentStoreStorage', this.toJSON(), depth, options, inspect);
  }

  /**
   * How this server expires records (`ttl-index` or `sweeper`) and why; undefined before the store has started.
   */
  get expiry(): ExpiryDetection | undefined {
    return this.#expiry;
  }

  /**
   * Connects, creates the indexes and finds out how the server expires records (starting the sweeper where it must).
   * Idempotent; a failed start is tried again by the next call.
   *
   * @throws {StorageError} `operation: 'connect'` when the server cannot be reached or refuses.
   */
  start(): Promise<void> {
    if (!this.#ready) {
      const opening = this.#open();
      this.#ready = opening;
      opening.catch(() => {
        if (this.#ready === opening) this.#ready = undefined;
      });
    }
    return this.#ready;
  }

  /** Stops the sweeper (waiting for a sweep under way) and closes every connection. A later call connects again. */
  async stop(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    await ready?.catch(() => undefined);
    await this.#sweeper.stop();
    await this.client.close();
  }

  /** Whether the server answers a `ping` now, and how records expire. */
  async health(): Promise<IntegrationHealth> {
    try {
      await this.start();
      await this.#db.command({ ping: 1 });
      return {
        healthy: true,
        detail: `mongodb database ${this.options.database}; expiry by ${this.#expiry?.mode}`,
        expiry: this.#expiry?.mode,
        sweeps: { ...this.#sweeper.stats },
      };
    } catch (error) {
      return { healthy: false, detail: messageOf(error) };
    }
  }

  /**
   * Stores a record in a collection (`threats`, `campaigns`, `indicators`). A threat record is the documented
   * `{indicator, results, scanDate, ttl}` (an `id` of its own optional); it expires `ttl` seconds after `scanDate`.
   * Other records are objects of JSON-like data; one with `ttl` expires `ttl` seconds after its `scanDate` (or now).
   * Top-level date fields given as ISO 8601 strings are stored as dates. Resolves with the record as stored.
   *
   * @throws {ValidationError} for an unknown collection key or a record that cannot be stored, naming the field.
   * @throws {StorageError} when the server cannot be reached or does not acknowledge the write.
   */
  async store(collection: string, record: object): Promise<Record<string, unknown> & { id: string }> {
    const key = recordCollection(collection);
    const document = key === 'threats' ? threatDocument(record) : genericDocument(record, this.#clock.now());
    await this.start();
    const target = this.#collection(key);
    await this.#run('store', key, () => target.insertOne(document));
    return fromDocument(document);
  }

  /**
   * The records of a collection that match `filter` and have not expired: comparison operators (`$eq $ne $gt $gte
   * $lt $lte $in $nin $exists $not`) on field paths such as `results.confidence`, and `$and $or $nor`. ISO 8601
   * strings compared with date fields (`scanDate`, `expiresAt`, `firstSeen`, `lastSeen`...) are compared as dates.
   * At most `options.limit` records (default and cap: `maxResults`).
   *
   * @throws {ValidationError} `Invalid storage filter: <path>: <reason>` for a refused operator (`$where`,
   *   `$function`, `$expr`, `$accumulator`, any unknown one) or a malformed filter; nothing is sent to the server.
   * @throws {StorageError} when the server cannot be reached or fails the query.
   */
  async query(
    collection: string,
    filter: object = {},
    options: DocumentQueryOptions = {},
  ): Promise<Array<Record<string, unknown> & { id: string }>> {
    const key = recordCollection(collection);
    const checked = checkFilter(filter);
    const limit = queryLimit(options.limit, this.options.maxResults);
    const sort = querySort(options.sort);
    await this.start();
    const target = this.#collection(key);
    const documents = await this.#run('query', key, () =>
      target.find(this.#unexpired(checked), { limit, ...(sort ? { sort } : {}) }).toArray(),
    );
    return documents.map((document) => fromDocument(document));
  }

  async storeThreats(records: readonly StoredThreatInput[]): Promise<void> {
    if (!Array.isArray(records)) {
      throw new ValidationError('threat records', [{ path: '(root)', message: 'expected an array of threat records' }]);
    }
    const documents = records.map((record, i) => threatDocument(record, `threat record [${i}]`));
    if (documents.length === 0) return;
    await this.start();
    const target = this.#collection('threats');
    await this.#run('store', 'threats', async () => {
      try {
        await target.insertMany(documents, { ordered: false });
      } catch (error) {
        // A record stored by an earlier attempt (same id) is stored: a retried batch is not an error.
        if (error instanceof MongoBulkWriteError && onlyDuplicates(error)) return;
        throw error;
      }
    });
  }

  async threatsOf(indicator: string, limit = 100): Promise<StoredThreat[]> {
    const documents = await this.#threats({ indicator: String(indicator) }, queryLimit(limit, this.options.maxResults));
    return documents.map((document) => fromThreatDocument(document));
  }

  /**
   * Folds sightings into the histories with `$min`, `$max` and `$inc` upserts, one per indicator. The writes of one
   * store run one after another: FerretDB 1.x applies an update as a read and a write, so two updates of one document
   * at the same moment can lose one (MongoDB's are atomic; two processes writing to FerretDB at once can still race).
   */
  async recordSightings(sightings: readonly IndicatorSighting[]): Promise<void> {
    const operations = sightingUpserts(parseSightings(sightings));
    if (operations.length === 0) return;
    await this.#serialised(() => this.#writeUpserts<IndicatorDocument>('indicators', operations));
  }

  /**
   * Folds campaign reports into the `campaigns` collection, one record per campaign id, each kept `ttl` seconds after
   * its latest `lastSeen` (see `campaignUpserts`: a report written twice changes nothing). Written one after another
   * like the histories, for FerretDB's sake.
   */
  async recordCampaigns(reports: readonly CampaignReport[], options: { ttl: number }): Promise<void> {
    const ttl = options?.ttl;
    const ttlIssue = ttlProblem(ttl);
    if (ttlIssue !== undefined) throw new ValidationError('campaign options', [{ path: 'ttl', message: ttlIssue }]);
    const operations = campaignUpserts(parseCampaignReports(reports), ttl);
    if (operations.length === 0) return;
    await this.#serialised(() => this.#writeUpserts<CampaignDocument>('campaigns', operations));
  }

  /** The campaign kept under `id`, unless it has expired; undefined otherwise. */
  async campaign(id: string): Promise<StoredCampaign | undefined> {
    if (typeof id !== 'string') return undefined;
    await this.start();
    const target = this.#collection<CampaignDocument>('campaigns');
    const document = await this.#run('query', 'campaigns', () =>
      target.findOne(this.#unexpired({ _id: id }) as Filter<CampaignDocument>),
    );
    return document === null ? undefined : toStoredCampaign(document);
  }

  /**
   * The outbox of `@threatlib/webhooks` named `name` (`WebhookOutbox`), on the `webhookOutbox` collection: deliveries
   * wait there until delivered or finally failed, and resume from there after a restart. Opening it connects the
   * store if it has not; a write once the store has stopped is refused rather than connecting again.
   */
  webhookOutbox(name: string): DocumentWebhookOutbox {
    return new DocumentWebhookOutbox(name, {
      collection: async (connect) => {
        if (connect) await this.start();
        else if (this.#ready === undefined) {
          throw new StorageError('mongodb', 'store', 'Document store: stopped; the webhook outbox cannot be written', {
            target: 'webhookOutbox',
            isRetryable: false,
          });
        } else await this.#ready;
        return this.#collection<WebhookOutboxDocument>('webhookOutbox');
      },
      run: (operation, work) => this.#run(operation, 'webhookOutbox', work),
      logger: this.#logger,
    });
  }

  /**
   * Where the list `name` (`list:<name>`, a TAXII list) keeps its state, on the `listStates` collection, so that
   * instances sharing the database resume from one position. Loading connects the store if it has not.
   */
  listStateStore(name: string): DocumentListState {
    return new DocumentListState(
      name,
      {
        collection: async () => {
          await this.start();
          return this.#collection<ListStateDocument>('listStates');
        },
        run: (operation, work) => this.#run(operation, 'listStates', work),
      },
      this.options.collections.listStates,
    );
  }

  /** Runs `work` after the upserts already under way of this store. */
  #serialised(work: () => Promise<void>): Promise<void> {
    const write = this.#upserts.then(work);
    this.#upserts = write.catch(() => undefined);
    return write;
  }

  /** Applies the upserts in order, in commands of a bounded size (see `writeUpserts`), once the store has started. */
  async #writeUpserts<T extends Document>(
    key: 'indicators' | 'campaigns',
    operations: AnyBulkWriteOperation<T>[],
  ): Promise<void> {
    await this.start();
    const target = this.#collection<T>(key);
    await this.#run('store', key, () => writeUpserts(target, operations));
  }

  async indicatorHistory(indicator: string): Promise<IndicatorHistory | undefined> {
    await this.start();
    const target = this.#collection<IndicatorDocument>('indicators');
    const document = await this.#run('query', 'indicators', () =>
      target.findOne({ _id: String(indicator) }, { projection: { _id: 0 } }),
    );
    return document === null ? undefined : toIndicatorHistory(document);
  }

  /** Deletes the threat and campaign records that have expired by now (the store's clock); resolves with how many. */
  async sweepExpired(): Promise<number> {
    await this.start();
    return this.#sweep(new Date(this.#clock.now()));
  }

  async #open(): Promise<void> {
    await this.#run('connect', undefined, async () => {
      await this.client.connect();
      const threats = this.#collection('threats');
      const expiry = await prepareExpiry(threats);
      if (expiry.mode === 'ttl-index') await prepareExpiry(this.#collection('campaigns'));
      else await this.#collection('campaigns').createIndex({ [EXPIRY_FIELD]: 1 }, { name: 'threatlib_expiresAt' });
      await threats.createIndex({ indicator: 1, scanDate: -1 }, { name: 'threatlib_indicator_scanDate' });
      await this.#collection('indicators').createIndex({ indicator: 1 }, { name: 'threatlib_indicator', unique: true });
      await this.#collection('alerts').createIndex({ time: -1, seq: -1 }, { name: 'threatlib_time_seq' });
      await this.#collection('alerts').createIndex(
        { pending: 1, time: -1, seq: -1 },
        { name: 'threatlib_pending_time_seq' },
      );
      this.#expiry = expiry;
    });
    const expiry = this.#expiry as ExpiryDetection;
    this.#logger.info(
      { database: this.options.database, expiry: expiry.mode },
      `document store ready: records expire by ${expiry.mode === 'ttl-index' ? "the server's TTL index" : `a sweep every ${this.options.sweepIntervalMs} ms`} (${expiry.reason})`,
    );
    if (expiry.mode === 'sweeper') this.#sweeper.start();
  }

  #collection<T extends Document = StoredDocument>(key: CollectionKey): Collection<T> {
    return this.#db.collection<T>(this.options.collections[key]);
  }

  /** `filter` restricted to records that have not expired by now: a record without `expiresAt` never expires. */
  #unexpired(filter: StorageFilter): StorageFilter {
    const live = { [EXPIRY_FIELD]: { $not: { $lte: new Date(this.#clock.now()) } } };
    return Object.keys(filter).length === 0 ? live : { $and: [filter, live] };
  }

  async #threats(filter: StorageFilter, limit: number): Promise<ThreatDocument[]> {
    await this.start();
    const target = this.#collection('threats');
    return (await this.#run('query', 'threats', () =>
      target.find(this.#unexpired(filter), { limit, sort: { scanDate: -1 } }).toArray(),
    )) as unknown as ThreatDocument[];
  }

  async #sweep(now: Date): Promise<number> {
    let deleted = 0;
    for (const key of ['threats', 'campaigns'] as const) {
      const target = this.#collection(key);
      const result = await this.#run('sweep', key, () => target.deleteMany({ [EXPIRY_FIELD]: { $lte: now } }));
      deleted += result.deletedCount;
    }
    return deleted;
  }

  /** Runs a driver call; a failure becomes a `StorageError` naming the operation and collection, never the URI. */
  async #run<T>(operation: StorageOperation, key: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (ThreatlibError.isInstance(error)) throw error;
      const where =
        key === undefined
          ? `database ${this.options.database}`
          : `collection "${key}" (${this.options.collections[key as CollectionKey] ?? key})`;
      throw driverError(operation, where, key, error);
    }
  }
}
