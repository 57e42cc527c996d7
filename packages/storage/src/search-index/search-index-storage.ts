import { Client, type ClientOptions, type estypes } from '@elastic/elasticsearch';
import { type ConfigurationIssue, type Logger, silentLogger, ValidationError } from '@threatlib/core';
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
import { type BulkDocument, BulkIndexer, type BulkIndexerStats, type IndexedDocument } from './bulk-indexer.js';
import { type CampaignSource, foldCampaignReports, readCampaign } from './campaign-records.js';
import { DailyIndexNames } from './daily-index.js';
import { DocumentIds } from './document-id.js';
import { DocumentRejectedError, describeFailure, runRequest } from './elasticsearch-errors.js';
import {
  ALERT_MAPPINGS,
  CAMPAIGN_FIELDS,
  CAMPAIGN_MAPPINGS,
  dailyIndexTemplate,
  INDICATOR_MAPPINGS,
  THREAT_FIELDS,
  THREAT_MAPPINGS,
} from './index-mappings.js';
import { foldSightings, readHistory } from './indicator-history.js';
import { RefreshTracker } from './refresh-tracker.js';
import { deleteExpiredIndices, PeriodicSweep } from './retention.js';
import { SearchAlertStore } from './search-alert-store.js';
import {
  type PreparedDocument,
  prepareSearchDocument,
  type SearchDocument,
  type StoredSearchDocument,
} from './search-document.js';
import {
  parseSearchIndexOptions,
  type ResolvedSearchIndexOptions,
  type SearchIndexOptions,
} from './search-index-options.js';
import { checkSearch, type SearchOptions, type SearchQuery } from './search-query.js';
import { prepareThreatRecord, type ThreatRecordSource, toStoredThreat } from './threat-records.js';

/** What `new SearchIndexStorage(options, runtime)` takes besides its options. */
export interface SearchIndexRuntime {
  /** Where the store logs (sweeps, failed requests); silent without one. */
  logger?: Logger;
  /** The clock batching, expiry and retention run on (tests pass a `ManualClock`). */
  clock?: Clock;
  /** Where the options sit in a configuration (`integrations.storage`), for error paths. */
  optionsPath?: string;
  /** More options for the `@elastic/elasticsearch` client (TLS, a custom `Connection`...), over the store's own. */
  clientOptions?: Omit<ClientOptions, 'node' | 'nodes' | 'auth'>;
}

/** The index keys `search` takes: the documented `indices`. `index` takes `threats`. */
export const DOCUMENT_INDEX_KEYS = ['threats', 'campaigns'] as const;
/** One of {@link DOCUMENT_INDEX_KEYS}. */
export type DocumentIndexKey = (typeof DOCUMENT_INDEX_KEYS)[number];

/** What a search of each index key may name, and what it sorts by unless told. */
const SEARCHABLE = {
  threats: { fields: THREAT_FIELDS, newestFirstBy: '@timestamp' },
  campaigns: { fields: CAMPAIGN_FIELDS, newestFirstBy: 'last_seen' },
} as const;

/** A campaign record as `search('campaigns', ...)` gives it back. */
export type StoredCampaignDocument = CampaignSource;

/** A document of a bulk that was not indexed, and why. */
export interface BulkIndexFailure {
  /** Its position in the documents given. */
  position: number;
  /** The concrete index and id it was sent as (absent when it was never sent). */
  index?: string;
  id?: string;
  /** The bulk item's HTTP status when Elasticsearch refused it. */
  status?: number;
  /** Why: Elasticsearch's `type: reason`, or why it could not be sent. */
  reason: string;
  error: StorageError;
}

/** What `indexMany` did: every document is either indexed or listed in `failed`. */
export interface BulkIndexReport {
  indexed: IndexedDocument[];
  failed: BulkIndexFailure[];
}

/** One document a search found. */
export interface SearchHit<Document = StoredSearchDocument & Record<string, unknown>> {
  /** The index it is in (a daily index for threats). */
  index: string;
  id: string;
  document: Document;
}

/** What `search` resolves to. */
export interface SearchResult<Document = StoredSearchDocument & Record<string, unknown>> {
  /** Documents that match (a lower bound when `totalIsExact` is false: Elasticsearch stops counting at 10,000). */
  total: number;
  totalIsExact: boolean;
  hits: SearchHit<Document>[];
}

/** What the store counts: the bulk indexer's figures and the retention sweeps'. */
export interface SearchIndexStats extends BulkIndexerStats {
  sweeps: number;
  sweepFailures: number;
}

/** Hits per round of the expired-record sweep. */
const SWEEP_PAGE = 1_000;

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
    if (!Array.isArray(documents)) {
      throw new ValidationError('search-index documents', [{ path: '(root)', message: 'expected an array' }]);
    }
    const issues: ConfigurationIssue[] = [];
    const prepared: PreparedDocument[] = [];
    for (const [i, document] of documents.entries()) {
      try {
        prepared.push(prepareSearchDocument(document));
      } catch (error) {
        if (!ValidationError.isInstance(error)) throw error;
        for (const issue of error.issues) issues.push({ ...issue, path: `[${i}].${issue.path}` });
      }
    }
    if (issues.length > 0) throw new ValidationError('search-index documents', issues.slice(0, 50));
    await this.start();
    const now = this.#clock.now();
    const sent = prepared.map((p) => this.#bulkDocument(key, p.source, p.time, this.#ids.next(now)));
    const errors = await this.#settled(sent);
    const report: BulkIndexReport = { indexed: [], failed: [] };
    sent.forEach(({ index, id }, position) => {
      const error = errors[position] as StorageError | undefined;
      if (error === undefined) {
        report.indexed.push({ index, id });
        return;
      }
      report.failed.push({
        position,
        index,
        id,
        ...(DocumentRejectedError.isInstance(error)
          ? { status: error.status, reason: `${error.errorType}: ${error.reason}` }
          : { reason: error.message }),
        error,
      });
    });
    return report;
  }

  /** Queues documents and resolves, once each has been settled, with each one's error (undefined: acknowledged). */
  #settled(documents: readonly BulkDocument[], flush = false): Promise<Array<unknown>> {
    const errors: unknown[] = new Array(documents.length);
    if (documents.length === 0) return Promise.resolve(errors);
    let remaining = documents.length;
    return new Promise((resolve) => {
      this.#bulk.add(documents, (position, error) => {
        errors[position] = error;
        remaining -= 1;
        if (remaining === 0) resolve(errors);
      });
      // The storage integration batches already: its records go now rather than wait for the interval.
      if (flush) void this.#bulk.flush();
    });
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
    const answer = await runRequest('search', key, () =>
      this.client.search<Record<string, unknown>>({
        index: this.options.indices[key],
        ...checked,
        // Expired threat records and campaigns are never returned (documents without an expiry always are).
        query: { bool: { filter: [checked.query], must_not: [{ range: { expires_at: { lte: now } } }] } },
        ignore_unavailable: true,
        allow_no_indices: true,
      }),
    );
    const total = answer.hits.total as estypes.SearchTotalHits;
    return {
      total: total.value,
      totalIsExact: total.relation === 'eq',
      hits: answer.hits.hits.map((hit) => ({
        index: hit._index,
        id: hit._id as string,
        document: hit._source as Record<string, unknown>,
      })),
    };
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
    const failed = (await this.#settled(sent, true)).filter((error) => error !== undefined);
    if (failed.length === 0) return;
    const first = failed[0] as StorageError;
    throw new StorageError(
      'elasticsearch',
      'store',
      `${failed.length} of ${records.length} threat record(s) were not stored: ${first.message}`,
      {
        target: 'threats',
        isRetryable: failed.every((error) => StorageError.isInstance(error) && error.isRetryable),
        cause: first,
      },
    );
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
    const answer = await runRequest('query', 'threats', () =>
      this.client.search<ThreatRecordSource>({
        index: this.options.indices.threats,
        query: { bool: { filter: [{ term: { indicator } }, { range: { expires_at: { gt: now } } }] } },
        sort: [{ '@timestamp': { order: 'desc' } }],
        size,
        track_total_hits: false,
        ignore_unavailable: true,
        allow_no_indices: true,
      }),
    );
    return answer.hits.hits.map((hit) => toStoredThreat(hit._id as string, hit._source as ThreatRecordSource));
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
    const { indices } = this.options;
    await runRequest('connect', undefined, () => this.client.cluster.health({}));
    // The alias of the daily threat indices must be free: an index under that name would make every one of them fail.
    const taken = await runRequest('connect', 'threats', () =>
      this.client.indices.resolveIndex({ name: indices.threats, expand_wildcards: 'all' }, { ignore: [404] }),
    );
    if ((taken.indices ?? []).some((index) => index.name === indices.threats)) {
      throw new StorageError(
        'elasticsearch',
        'connect',
        `indices.threats: "${indices.threats}" is an existing index; the store keeps threats in daily indices "${indices.threats}-YYYY.MM.DD" under the alias "${indices.threats}", so that name must be free (pick another, or delete that index)`,
        { target: 'threats', isRetryable: false },
      );
    }
    await runRequest('connect', 'threats', () =>
      this.client.indices.putIndexTemplate(dailyIndexTemplate(indices.threats)),
    );
    // Daily indices made under an earlier template (the alias holds only those) gain the fields added since.
    await runRequest('connect', 'threats', () =>
      this.client.indices.putMapping(
        { index: indices.threats, properties: THREAT_MAPPINGS.properties ?? {} },
        { ignore: [404] },
      ),
    );
    await this.#ensureIndex('campaigns', CAMPAIGN_MAPPINGS);
    await this.#ensureIndex('indicators', INDICATOR_MAPPINGS);
    await this.#ensureIndex('alerts', ALERT_MAPPINGS);
    if (this.#stopped) throw this.#stoppedError('connect');
    await this.#sweep.start();
  }

  /** Makes a single index with its mapping, or checks that the one there was made by threatlib for this purpose. */
  async #ensureIndex(key: 'campaigns' | 'indicators' | 'alerts', mappings: estypes.MappingTypeMapping): Promise<void> {
    const index = this.options.indices[key];
    const meta = { managed_by: 'threatlib', kind: key };
    await runRequest('connect', key, () =>
      this.client.indices.create({ index, mappings: { ...mappings, _meta: meta } }, { ignore: [400] }),
    );
    const mapping = await runRequest('connect', key, () => this.client.indices.getMapping({ index }));
    const found = Object.values(mapping)[0]?.mappings?._meta as Record<string, unknown> | undefined;
    if (found?.managed_by !== 'threatlib' || found.kind !== key) {
      throw new StorageError(
        'elasticsearch',
        'connect',
        `indices.${key}: the index "${index}" exists and was not made by threatlib for ${key}; pick another name`,
        { target: key, isRetryable: false },
      );
    }
    // An index made by an earlier version gains the fields added since (adding fields is all a mapping update may do).
    await runRequest('connect', key, () =>
      this.client.indices.putMapping({ index, properties: mappings.properties ?? {} }),
    );
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
   * Deletes the threat records or campaigns whose `expires_at` has passed: pages of ids found by a search, deleted by
   * id in bulk (the server may have no delete-by-query). Reads never return them either way.
   */
  async #deleteExpired(key: 'threats' | 'campaigns', now: number): Promise<number> {
    const index = this.options.indices[key];
    const before = new Date(now).toISOString();
    let deleted = 0;
    for (;;) {
      await runRequest('sweep', key, () =>
        this.client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true }),
      );
      const answer = await runRequest('sweep', key, () =>
        this.client.search({
          index,
          query: { range: { expires_at: { lte: before } } },
          _source: false,
          size: SWEEP_PAGE,
          track_total_hits: false,
          ignore_unavailable: true,
          allow_no_indices: true,
        }),
      );
      const hits = answer.hits.hits;
      if (hits.length === 0) return deleted;
      const result = await runRequest('sweep', key, () =>
        this.client.bulk({ operations: hits.map((hit) => ({ delete: { _index: hit._index, _id: hit._id } })) }),
      );
      const gone = result.items.filter((item) => item.delete?.result === 'deleted').length;
      deleted += gone;
      if (hits.length < SWEEP_PAGE || gone === 0) {
        await runRequest('sweep', key, () =>
          this.client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true }),
        );
        return deleted;
      }
    }
  }

  #stoppedError(operation: StorageOperation): StorageError {
    return new StorageError('elasticsearch', operation, 'the search index is stopped', { isRetryable: false });
  }
}

/** `indexKey` when it is `threats` or `campaigns`. */
function searchIndexKey(indexKey: unknown): DocumentIndexKey {
  if (typeof indexKey === 'string' && (DOCUMENT_INDEX_KEYS as readonly string[]).includes(indexKey)) {
    return indexKey as DocumentIndexKey;
  }
  throw new ValidationError('index key', [
    { path: 'indexKey', message: `expected "threats" or "campaigns", got ${JSON.stringify(indexKey) ?? 'nothing'}` },
  ]);
}

/** `indexKey` when it is `threats`, the index documents are indexed into. */
function threatsIndexKey(indexKey: unknown): 'threats' {
  if (indexKey === 'threats') return indexKey;
  const message =
    indexKey === 'campaigns'
      ? '"campaigns" keeps one record per campaign, made from campaign reports (recordCampaigns); index takes threat documents into "threats"'
      : `expected "threats", got ${JSON.stringify(indexKey) ?? 'nothing'}`;
  throw new ValidationError('index key', [{ path: 'indexKey', message }]);
}
