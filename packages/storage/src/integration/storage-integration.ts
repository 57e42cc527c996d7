import {
  type Alert,
  ConfigurationError,
  type CorrelationResult,
  type EnrichedIndicator,
  type IndicatorRef,
  IndicatorRefSchema,
} from '@threatlib/core';
import {
  type AlertStore,
  type Integration,
  type IntegrationContext,
  type IntegrationFactory,
  type IntegrationHealth,
  systemClock,
} from '@threatlib/core/integration';
import type { ListStateStore } from '@threatlib/core/lists';
import { ObjectId } from 'mongodb';
import { parseCampaignReports } from '../contract/campaign-schema.js';
import type {
  CampaignReport,
  IndicatorSighting,
  StoredThreatInput,
  ThreatStorage,
} from '../contract/threat-storage.js';
import type { WebhookOutboxStore } from '../document-store/webhook-outbox.js';
import { parseStorageOptions, type StorageIntegrationSettings } from './storage-options.js';
import { WriteBatcher, type WriteBatcherStats } from './write-batcher.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The storage back end `client.start()` builds from `integrations.storage`. */
    storage: StorageIntegration;
  }
}

/** The options of `integrations.storage`: `{type: 'mongodb', uri, database, collections?, ttl?, batching?}`. */
export interface StorageIntegrationOptions {
  /** Which back end: `mongodb` (a MongoDB or wire-compatible server). */
  type: string;
  /** Seconds each correlation's threat record is kept (default 2,592,000: 30 days). */
  ttl?: number;
  /** Whether `indicators` keeps each indicator's history, from which `enrichIndicator` answers (default true). */
  indicatorHistory?: boolean;
  /** `{maxDelayMs: 50, maxBatch: 500, maxBuffered: 10000, retryDelayMs: 100, maxRetryDelayMs: 5000}`. */
  batching?: Partial<StorageIntegrationSettings['batching']>;
  [option: string]: unknown;
}

/** What the integration writes: for a correlation, its threat record and its sighting; or a campaign report. */
type Kept =
  | { kind: 'correlation'; threat: StoredThreatInput; sighting: IndicatorSighting }
  | { kind: 'campaign'; report: CampaignReport };

/** The steps of writing one batch, in order; a retried batch starts at the step that failed. */
const STEPS = ['threats', 'sightings', 'campaigns'] as const;

/** The correlation the client's `correlated` event carries (a `CorrelationResult` without the feed results). */
type Correlation = Omit<CorrelationResult, 'results' | 'startedAt' | 'durationMs'>;

/**
 * A storage back end as a client integration. While it runs, every correlation the client concludes is kept: its
 * threat record in `threats` (`{indicator, results: the correlation, scanDate, ttl}`) and its sighting folded into
 * the indicator's history in `indicators`, from which `enrichIndicator` answers; every campaign the client's
 * campaign tracker reports (`campaignDetected`) is folded into its record in `campaigns`; and it is the client's alert
 * store (`alertStore`), so alerts and their deliveries survive a restart (and the deliveries left pending resume).
 *
 * The scan path only queues: writes are batched (`batching.maxDelayMs`, 50 ms, or `maxBatch`, 500, whichever comes
 * first), a failed write is retried with backoff and held meanwhile, up to `maxBuffered` (10,000) records; past
 * that, records are dropped, counted (`stats().dropped`, `health()`, `threatlib_storage_records_dropped_total`) and
 * logged, never silently. `stop()` writes what is held, once.
 */
export class StorageIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The back end behind the integration. */
  readonly storage: ThreatStorage;
  readonly #context: IntegrationContext;
  readonly #settings: StorageIntegrationSettings;
  readonly #batcher: WriteBatcher<Kept>;
  readonly #onCorrelated = (correlation: Correlation) => this.#keep(correlation);
  readonly #onCampaign = (report: CampaignReport) => this.#keepCampaign(report);

  /**
   * @throws {ConfigurationError} `Configuration invalid: integrations.storage...` when the options are missing or
   *   invalid, naming each problem.
   */
  constructor(options: StorageIntegrationOptions, context: IntegrationContext) {
    if (options === undefined || options === null || Object.keys(options as object).length === 0) {
      throw new ConfigurationError([
        { path: context.optionsPath, message: 'not configured: set {type: "mongodb", uri, database}' },
      ]);
    }
    const parsed = parseStorageOptions(options, context.optionsPath);
    this.#context = context;
    this.#settings = parsed.settings;
    this.storage = parsed.backend.create(parsed.options, {
      logger: context.logger,
      optionsPath: context.optionsPath,
      clock: systemClock,
    });
    this.#batcher = new WriteBatcher<Kept>({
      ...parsed.settings.batching,
      clock: systemClock,
      logger: context.logger,
      what: 'records',
      write: (batch) => this.#write(batch),
    });
  }

  /**
   * The outbox of `@threatlib/webhooks` named `name` on the back end, when it has one (the document store): with
   * `integrations.storage` configured, `integrations.webhooks` keeps its outgoing deliveries there.
   */
  webhookOutbox(name: string): WebhookOutboxStore | undefined {
    return this.storage.webhookOutbox?.(name);
  }

  /**
   * Where the client's TAXII lists keep their position and indicators (`list:<name>`), when the back end can (the
   * document store): with `integrations.storage` configured, every instance sharing the database resumes from them.
   */
  listStateStore(name: string): ListStateStore | undefined {
    return this.storage.listStateStore?.(name);
  }

  /** The back end's alert store: the client keeps its alerts there while this integration runs. */
  get alertStore(): AlertStore {
    return this.storage.alerts;
  }

  /**
   * Connects (so that a server that cannot be reached fails `client.start()`) and starts keeping correlations and
   * campaigns.
   */
  async start(): Promise<void> {
    await this.storage.start();
    this.#context.events.on('correlated', this.#onCorrelated);
    if (typeof this.storage.recordCampaigns === 'function') {
      this.#context.events.on('campaignDetected', this.#onCampaign);
    } else {
      this.#context.logger.warn(
        { backend: this.storage.backend },
        `the ${this.storage.backend} storage back end does not keep campaigns yet: campaign reports are not stored`,
      );
    }
  }

  /** Stops keeping correlations and campaigns, writes what is held (once), and closes the back end. */
  async stop(): Promise<void> {
    this.#context.events.off('correlated', this.#onCorrelated);
    this.#context.events.off('campaignDetected', this.#onCampaign);
    try {
      await this.#batcher.stop();
    } finally {
      await this.storage.stop();
    }
  }

  /** Resolves once every record kept so far is written (retrying while the server is down). */
  flush(): Promise<void> {
    return this.#batcher.flush();
  }

  /** What the integration wrote, holds and could not keep. */
  stats(): WriteBatcherStats {
    return this.#batcher.stats;
  }

  /** The back end's health, with the write counters; unhealthy while correlations are being dropped. */
  async health(): Promise<IntegrationHealth> {
    const health = await this.storage.health();
    const stats = this.#batcher.stats;
    return { ...health, writes: stats };
  }

  /**
   * Keeps the alert in the back end's alert store unless it holds it already. The client does not send alerts to the
   * integration that keeps them; this is for an alert handed over directly.
   */
  async sendAlert(alert: Alert): Promise<{ stored: string }> {
    if ((await this.storage.alerts.get(alert.id)) === undefined) await this.storage.alerts.add(alert);
    return { stored: alert.id };
  }

  /**
   * What the indicator's history says (`EnrichedIndicator`): first and last seen, how many correlations concluded
   * about it (`associatedEvents`), and the latest risk score (1..10); undefined when it was never seen.
   */
  async enrichIndicator(indicator: IndicatorRef): Promise<EnrichedIndicator | undefined> {
    const parsed = IndicatorRefSchema.safeParse(indicator);
    const value = parsed.success ? parsed.data.value : String((indicator as { value?: unknown })?.value ?? '');
    const history = await this.storage.indicatorHistory(value);
    if (history === undefined) return undefined;
    return {
      indicator: history.indicator,
      firstSeen: history.firstSeen.toISOString(),
      lastSeen: history.lastSeen.toISOString(),
      associatedEvents: history.timesSeen,
      riskScore: history.lastRiskScore,
    };
  }

  /** On the scan's path: only queues. */
  #keep(correlation: Correlation): void {
    const seenAt = new Date(systemClock.now());
    this.#batcher.add({
      kind: 'correlation',
      threat: {
        id: new ObjectId().toHexString(),
        indicator: correlation.indicator,
        results: correlation as unknown as Record<string, unknown>,
        scanDate: seenAt,
        ttl: this.#settings.ttl,
      },
      sighting: {
        indicator: correlation.indicator,
        type: correlation.type,
        seenAt,
        verdict: correlation.verdict,
        confidence: correlation.confidence,
        riskScore: correlation.riskScore,
      },
    });
  }

  /**
   * On the tracker's path: checks the report (a report that is not one is refused here, logged and counted as
   * dropped, rather than failing a whole batch at every retry), then only queues.
   */
  #keepCampaign(report: CampaignReport): void {
    try {
      parseCampaignReports([report]);
    } catch (error) {
      this.#batcher.refuse(1, `a campaign report was not one: ${(error as Error).message}`);
      return;
    }
    this.#batcher.add({ kind: 'campaign', report });
  }

  /** How far each batch got: a retried batch starts again at the step that failed, so no step is applied twice. */
  readonly #stepsDone = new WeakMap<readonly Kept[], number>();

  async #write(batch: readonly Kept[]): Promise<void> {
    const threats: StoredThreatInput[] = [];
    const sightings: IndicatorSighting[] = [];
    const campaigns: CampaignReport[] = [];
    for (const item of batch) {
      if (item.kind === 'correlation') {
        threats.push(item.threat);
        sightings.push(item.sighting);
      } else campaigns.push(item.report);
    }
    for (let step = this.#stepsDone.get(batch) ?? 0; step < STEPS.length; step++) {
      switch (STEPS[step]) {
        // Threat records carry their ids: writing them again after an ambiguous failure does not double them.
        case 'threats':
          await this.storage.storeThreats(threats);
          break;
        case 'sightings':
          if (this.#settings.indicatorHistory) await this.storage.recordSightings(sightings);
          break;
        case 'campaigns':
          if (campaigns.length > 0) await this.storage.recordCampaigns?.(campaigns, { ttl: this.#settings.ttl });
          break;
      }
      this.#stepsDone.set(batch, step + 1);
    }
  }
}

/**
 * The factory `client.start()` calls for `integrations.storage` (core imports it from `@threatlib/storage`).
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: { storage: { type: 'mongodb', uri: 'mongodb://127.0.0.1:27017', database: 'threatlib' } },
 * });
 * await client.start(); // imports @threatlib/storage, connects, prepares the collections
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.storage.<option>: ...` naming each problem.
 */
export const createStorageIntegration: IntegrationFactory<StorageIntegrationOptions, StorageIntegration> = (
  options,
  context,
) => new StorageIntegration(options, context);
