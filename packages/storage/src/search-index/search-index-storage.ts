// The search index store: its client, lifecycle and health, and the calls of the search-index API and of the
// `ThreatStorage` contract.
import { Client } from '@elastic/elasticsearch';
import { type Logger, silentLogger, ValidationError } from '@threatlib/core';
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
import { type BulkDocument, BulkIndexer, type IndexedDocument } from './bulk-indexer.js';
import { foldCampaignReports, readCampaign } from './campaign-records.js';
import { DailyIndexNames } from './daily-index.js';
import { DocumentIds } from './document-id.js';
import { describeFailure } from './elasticsearch-errors.js';
import { deleteExpiredRecords } from './expired-records.js';
import { type DocumentIndexKey, SEARCHABLE, searchIndexKey, threatsIndexKey } from './index-keys.js';
import { prepareIndices } from './index-setup.js';
import { foldSightings, readHistory } from './indicator-history.js';
import { RefreshTracker } from './refresh-tracker.js';
import { deleteExpiredIndices, PeriodicSweep } from './retention.js';
import { SearchAlertStore } from './search-alert-store.js';
import { prepareSearchDocument, prepareSearchDocuments, type SearchDocument } from './search-document.js';
import {
  parseSearchIndexOptions,
  type ResolvedSearchIndexOptions,
  type SearchIndexOptions,
  type SearchIndexRuntime,
} from './search-index-options.js';
import { checkSearch, type SearchOptions, type SearchQuery } from './search-query.js';
import {
  type BulkIndexReport,
  bulkIndexReport,
  runSearch,
  type SearchIndexStats,
  type SearchResult,
  type StoredCampaignDocument,
} from './search-results.js';
import { notStoredError, prepareThreatRecord, queryThreatRecords } from './threat-records.js';

export type { DocumentIndexKey } from './index-keys.js';
export type { SearchIndexRuntime } from './search-index-options.js';
export type {
  BulkIndexFailure,
  BulkIndexReport,
  SearchHit,
  SearchIndexStats,
  SearchResult,
  StoredCampaignDocument,
} from './search-results.js';

/**
 * The search index: threat documents, campaigns, indicator histories and the client's alerts in Elasticsearch 8, on
 * the official `@elastic/elasticsearch` client.
 *
 * `threats` are kept in daily indices (`<name>-YYYY.MM.DD`, by the document's `@timestamp` in UTC) that an index
 * template made at start gives an explicit, strict mapping and the alias `<name>`, which searches go through. A daily
 * index is deleted once its whole day is more than `retentionDays` old: by a sweep at start and every
 * `sweepIntervalMs` (no ILM or delete-by-query needed). `campaigns` is one index with a record per campaign, grown by
 * every report of it (`recordCampaigns`) and kept `ttl` after it was last seen. Documents are sent in bulk requests by the client's
 * bulk helper, batched by count, bytes and time; a document Elasticsearch refuses is reported with its reason. A
 * search is a small, checked part of the query DSL (see `checkSearch`): scripts and anything else off the allowlist
 * are refused before anything is sent.
 *
 * The first call starts the store (templates, indices, first sweep); `start()` does it up front. `stop()` sends what
 * is queued, stops the sweeps and closes the client; a stopped store is not started again.
 *
 * @example
 * ```ts
 * const es = new SearchIndexStorage({
 *   node: 'http://localhost:9200',
 *   auth: { username: 'elastic', password: process.env.ES_PASSWORD },
 *   indices: { threats: 'threat-intel', campaigns: 'campaigns' },
 * });
 * await es.index('threats', {
 *   indicator: 'malicious.example',
 *   threat_type: 'malware',
 *   confidence: 95,
 *   sources: ['feed_otx', 'feed_abuse'],
 *   '@timestamp': new Date().toISOString(),
 * });
 * const { hits } = await es.search('threats', { term: { indicator: 'malicious.example' } });
 * await es.stop();
 * ```
 */
export class SearchIndexStorage implements ThreatStorage {
  readonly backend = 'elasticsearch';
  readonly #options: ResolvedSearchIndexOptions;
  #shownOptions: ResolvedSearchIndexOptions | undefined;
  readonly #client: Client;
  /** Core's alert store contract on the `alerts` index. */
  readonly alerts: SearchAlertStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #bulk: BulkIndexer;
  readonly #refresh: RefreshTracker;
  readonly #sweep: PeriodicSweep;
  readonly #ids = new DocumentIds();
  readonly #dailyIndex: DailyIndexNames;
  #ready: Promise<void> | undefined;
  #stopped = false;

  /**
   * @throws {ConfigurationError} `Configuration invalid: <option>: <reason>` naming each invalid option.
   */
  constructor(options: SearchIndexOptions, runtime: SearchIndexRuntime = {}) {
    this.#options = parseSearchIndexOptions(options, runtime.optionsPath);
    this.#clock = runtime.clock ?? systemClock;
    this.#logger = runtime.logger ?? silentLogger;
    const { node, auth, requestTimeoutMs, indices } = this.#options;
    this.#client = new Client({
      requestTimeout: requestTimeoutMs,
      name: 'threatlib',
      ...runtime.clientOptions,
      node,
      ...(auth === undefined ? {} : { auth }),
    });
    this.#refresh = new RefreshTracker(this.client, indices);
    this.#dailyIndex = new DailyIndexNames(indices.threats);
    this.#bulk = new BulkIndexer({
      ...this.options,
      client: this.client,
      clock: this.#clock,
      logger: this.#logger,
      onAcknowledged: (keys) => {
        for (const key of keys) this.#refresh.written(key);
      },
    });
    this.#sweep = new PeriodicSweep({
      clock: this.#clock,
      intervalMs: this.options.sweepIntervalMs,
      logger: this.#logger,
      sweep: async (now) => {
        await this.#deleteOldIndices(now);
        await this.#deleteExpired('threats', now);
        await this.#deleteExpired('campaigns', now);
      },
    });
    this.alerts = new SearchAlertStore({
      client: this.client,
      index: async () => {
        await this.start();
        return indices.alerts;
      },
      refresh: this.#refresh,
      now: () => new Date(this.#clock.now()),
    });
  }

  /**
   * The options in force, defaults filled in, with `auth` shown as `[redacted]`: the store keeps its credentials to
   * itself, so that logging it shows none.
   */
  get options(): ResolvedSearchIndexOptions {
    this.#shownOptions ??= redactedView(this.#options);
    return this.#shownOptions;
  }

  /**
   * The `@elastic/elasticsearch` client, for what this class does not cover (and its `diagnostic` events). It holds
   * the credentials: it is not part of what the store shows (`toJSON`, `util.inspect`), so do not log it.
   */
  get client(): Client {
    return this.#client;
  }

  /** What `JSON.stringify` writes of the store: its back end and redacted options. */
  toJSON(): { backend: 'elasticsearch'; options: ResolvedSearchIndexOptions } {
    return { backend: this.backend, options: this.options };
  }

  /** What `util.inspect` and `console.log` show of the store: {@link toJSON}'s view, never a password. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('SearchIndexStorage', this.toJSON(), depth, options, inspect);
  }

  /**
   * Checks that the cluster answers (`_cluster/health`) with these credentials, puts the index template of the daily
   * `threats` indices, makes the `campaigns`, `indicators` and `alerts` indices, and runs the first retention sweep.
   * Calling it again does nothing; the first call of any other method calls it.
   *
   * @throws {StorageError} when the cluster cannot be reached, refuses the credentials, or a configured name is taken
   *   by an index threatlib did not make.
   */
  start(): Promise<void> {
    if (this.#stopped) return Promise.reject(this.#stoppedError('connect'));
    this.#ready ??= this.#prepare().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** Sends what is queued, waits for it, stops the sweeps and closes the client. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    // A start under way finishes first (or fails), so that it cannot schedule a sweep after this.
    await this.#ready?.catch(() => undefined);
    await this.#sweep.stop();
    await this.#bulk.stop();
    // What this store wrote becomes searchable before it goes, so a store opened next sees it at once.
    if (this.#ready !== undefined) {
      await Promise.all(
        Object.keys(this.options.indices).map((key) =>
          this.#refresh.beforeSearch(key, { maxRetries: 0, requestTimeout: 5_000 }).catch((error: unknown) => {
            this.#logger.debug({ key, reason: describeFailure(error) }, 'elasticsearch: refresh at stop failed');
          }),
        ),
      );
    }
    await this.client.close();
  }

  /** The cluster's health as Elasticsearch reports it, with what is queued. */
  async health(): Promise<IntegrationHealth> {
    const stats = this.stats;
    if (this.#stopped) return { healthy: false, detail: 'stopped', ...stats };
    try {
      const health = await this.client.cluster.health({}, { requestTimeout: 5_000, maxRetries: 0 });
      return {
        healthy: health.status !== 'red',
        detail: `elasticsearch cluster ${health.cluster_name} is ${health.status}`,
        status: health.status,
        ...stats,
      };
    } catch (error) {
      return { healthy: false, detail: `elasticsearch: ${describeFailure(error)}`, ...stats };
    }
  }

  /** Documents queued, sent, refused and failed, and the retention sweeps run. */
  get stats(): SearchIndexStats {
    return { ...this.#bulk.stats, sweeps: this.#sweep.stats.sweeps, sweepFailures: this.#sweep.stats.failures };
  }

  /**
   * Indexes a search-index threat document (`{indicator, threat_type, confidence, sources, '@timestamp'}`) into the
   * daily `threats` index of its `@timestamp` (campaigns are kept from campaign reports: `recordCampaigns`). It goes out in the next bulk request (within `flushIntervalMs`); resolves once
   * Elasticsearch acknowledged it, with the index and id it got.
   *
   * @throws {ValidationError} naming each field that is wrong (nothing is sent).
   * @throws {DocumentRejectedError} when Elasticsearch refused the document, with its reason.
   * @throws {StorageError} when it could not be sent (after the retries) or too many documents are waiting.
   */
  async index(indexKey: 'threats', document: SearchDocument): Promise<IndexedDocument> {
    const key = threatsIndexKey(indexKey);
    const prepared = prepareSearchDocument(document);
    await this.start();
    const sent = this.#bulkDocument(key, prepared.source, prepared.time, this.#ids.next(this.#clock.now()));
    return new Promise((resolve, reject) => {
      this.#bulk.add([sent], (_position, error) =>
        error === undefined ? resolve({ index: sent.index, id: sent.id }) : reject(error),
      );
    });
  }

  /**
   * Indexes many documents through the same bulk requests as `index`. Every document is checked first (one invalid
   * document refuses the call, nothing sent); then each is either indexed or reported in `failed` with the reason,
   * never dropped silently.
   *
   * @throws {ValidationError} `Invalid search-index documents: [i].<field>: <reason>; ...` naming every problem.
   * @throws {StorageError} when more than `maxQueued` documents would be waiting.
   */
  async indexMany(indexKey: 'threats', documents: readonly SearchDocument[]): Promise<BulkIndexReport> {
    const key = threatsIndexKey(indexKey);
    const prepared = prepareSearchDocuments(documents);
    await this.start();
    const now = this.#clock.now();
    const sent = prepared.map((p) => this.#bulkDocument(key, p.source, p.time, this.#ids.next(now)));
    const errors = await this.#bulk.settled(sent);
    return bulkIndexReport(sent, errors);
  }

  /** Sends every queued document now; resolves once nothing is queued or in flight. */
  async flush(): Promise<void> {
    await this.#bulk.flush();
  }

  /**
   * Searches the documents of `threats` (every daily index, through the alias) or the records of `campaigns` with a
   * checked query: `term`, `terms`, `range`, `exists`, `match_all` and `bool` on the mapped fields (threats:
   * `indicator`, `threat_type`, `confidence`, `sources`, `@timestamp`, `campaign`, `expires_at`; campaigns:
   * `campaign`, `status`, `shared_by.kind`, `shared_by.value`, `indicators`, `indicator_count`, `first_seen`,
   * `last_seen`, `sources`, `expires_at`). Newest first unless `sort` says otherwise. Never returns an expired threat
   * record or campaign; sees every document this store acknowledged.
   *
   * @example
   * ```ts
   * await es.search('threats', {
   *   bool: { filter: [{ term: { threat_type: 'malware' } }, { range: { '@timestamp': { gte: 'now-7d' } } }] },
   * }, { size: 50, sort: { confidence: 'desc' } });
   * ```
   *
   * @throws {ValidationError} `Invalid search query: <path>: <reason>` for anything off the allowlist (nothing sent).
   */
  search(indexKey: 'threats', query?: SearchQuery, options?: SearchOptions): Promise<SearchResult>;
  search(
    indexKey: 'campaigns',
    query?: SearchQuery,
    options?: SearchOptions,
  ): Promise<SearchResult<StoredCampaignDocument>>;
  async search(
    indexKey: DocumentIndexKey,
    query?: SearchQuery,
    options: SearchOptions = {},
  ): Promise<SearchResult<object>> {
    const key = searchIndexKey(indexKey);
    const { fields, newestFirstBy } = SEARCHABLE[key];
    const checked = checkSearch(query, options, fields, this.options.maxResults, newestFirstBy);
    await this.start();
    await this.#refresh.beforeSearch(key);
    const now = new Date(this.#clock.now()).toISOString();
    return runSearch(this.client, this.options.indices[key], key, checked, now);
  }

  /** Deletes the daily indices past retention now (as the periodic sweep does); resolves with their names. */
  async sweepRetention(): Promise<string[]> {
    await this.start();
    return this.#deleteOldIndices(this.#clock.now());
  }

  // --- ThreatStorage -----------------------------------------------------------------------------------------------

  /**
   * Stores threat records (`{indicator, results, scanDate, ttl}`, optional `id`) in `threats`, in the daily index of
   * their `scanDate`, sent at once; resolves once Elasticsearch acknowledged all of them. A record stored again under
   * its id overwrites itself.
   *
   * @throws {ValidationError} `Invalid threat record [i]: <field>: <reason>` before anything is sent.
   * @throws {StorageError} when some were not stored, with the first reason.
   */
  async storeThreats(records: readonly StoredThreatInput[]): Promise<void> {
    const prepared = records.map((record, i) => prepareThreatRecord(record, `threat record [${i}]`));
    if (prepared.length === 0) return;
    await this.start();
    const now = this.#clock.now();
    const sent = prepared.map(({ id, time, source }) =>
      this.#bulkDocument('threats', source, time, id ?? this.#ids.next(now)),
    );
    const failed = (await this.#bulk.settled(sent, true)).filter((error) => error !== undefined);
    if (failed.length === 0) return;
    throw notStoredError(failed, records.length);
  }

  /** The unexpired threat records of an indicator (by the store's clock), newest `scanDate` first, at most `limit`. */
  async threatsOf(indicator: string, limit = 100): Promise<StoredThreat[]> {
    if (typeof indicator !== 'string' || indicator.length === 0 || indicator.length > 8192) {
      throw new ValidationError('threat query', [{ path: 'indicator', message: 'expected a non-empty string' }]);
    }
    const size = Math.min(Math.max(Math.trunc(Number.isFinite(limit) ? limit : 100), 1), 10_000);
    await this.start();
    await this.#refresh.beforeSearch('threats');
    const now = new Date(this.#clock.now()).toISOString();
    return queryThreatRecords(this.client, this.options.indices.threats, indicator, size, now);
  }

  /** Folds sightings into the indicators' histories (no scripts: conditional writes, retried on a race). */
  async recordSightings(sightings: readonly IndicatorSighting[]): Promise<void> {
    const parsed = parseSightings(sightings);
    if (parsed.length === 0) return;
    await this.start();
    await foldSightings(this.client, this.options.indices.indicators, parsed);
  }

  /** The history of an indicator (read in real time), or undefined when it was never seen. */
  async indicatorHistory(indicator: string): Promise<IndicatorHistory | undefined> {
    if (typeof indicator !== 'string' || indicator.length === 0) return undefined;
    await this.start();
    return readHistory(this.client, this.options.indices.indicators, indicator);
  }

  /** Deletes the threat records and campaigns expired by now (the store's clock); resolves with how many. */
  async sweepExpired(): Promise<number> {
    await this.start();
    const now = this.#clock.now();
    return (await this.#deleteExpired('threats', now)) + (await this.#deleteExpired('campaigns', now));
  }

  /**
   * Folds campaign reports into one record per campaign id in `campaigns`: indicators and sources accumulate,
   * `firstSeen` keeps the earliest, `lastSeen` and `indicatorCount` the largest, `status` becomes `grown` for good;
   * kept `ttl` seconds after its latest `lastSeen`. Folding a report again changes nothing (a retried batch). No
   * scripts: real-time reads and conditional writes, retried on a race.
   *
   * @throws {ValidationError} `Invalid campaign reports: [i].<field>: <reason>` before anything is sent.
   */
  async recordCampaigns(reports: readonly CampaignReport[], options: { ttl: number }): Promise<void> {
    const ttl = options?.ttl;
    const ttlIssue = ttlProblem(ttl);
    if (ttlIssue !== undefined) throw new ValidationError('campaign options', [{ path: 'ttl', message: ttlIssue }]);
    const parsed = parseCampaignReports(reports);
    if (parsed.length === 0) return;
    await this.start();
    await foldCampaignReports(this.client, this.options.indices.campaigns, parsed, ttl);
    this.#refresh.written('campaigns');
  }

  /** The campaign kept under `id` (read in real time), unless there is none or it has expired by the store's clock. */
  async campaign(id: string): Promise<StoredCampaign | undefined> {
    if (typeof id !== 'string' || id.length === 0) return undefined;
    await this.start();
    return readCampaign(this.client, this.options.indices.campaigns, id, this.#clock.now());
  }

  // --- internals ---------------------------------------------------------------------------------------------------

  async #prepare(): Promise<void> {
    await prepareIndices(this.client, this.options.indices);
    if (this.#stopped) throw this.#stoppedError('connect');
    await this.#sweep.start();
  }

  /** A document for the bulk indexer: its daily index, its id, its source as JSON. */
  #bulkDocument(key: 'threats', source: unknown, time: number, id: string): BulkDocument {
    return { key, index: this.#dailyIndex.of(time), id, json: JSON.stringify(source) };
  }

  async #deleteOldIndices(now: number): Promise<string[]> {
    const { indices, retentionDays } = this.options;
    const deleted = await deleteExpiredIndices(this.client, [indices.threats], now, retentionDays);
    if (deleted.length > 0) {
      this.#logger.info({ deleted, retentionDays }, `elasticsearch: deleted ${deleted.length} daily index(es)`);
    }
    return deleted;
  }

  /**
   * Deletes the threat records or campaigns whose `expires_at` has passed. Reads never return them either way.
   */
  #deleteExpired(key: 'threats' | 'campaigns', now: number): Promise<number> {
    return deleteExpiredRecords(this.client, this.options.indices, key, now);
  }

  #stoppedError(operation: StorageOperation): StorageError {
    return new StorageError('elasticsearch', operation, 'the search index is stopped', { isRetryable: false });
  }
}
