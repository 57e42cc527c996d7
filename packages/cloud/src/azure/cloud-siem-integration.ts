import type { TokenCredential } from '@azure/identity';
import {
  type Alert,
  type Correlation,
  type Logger,
  type StixCorrelationInput,
  type StixIndicator,
  silentLogger,
  type ThreatEvents,
  toStixBundle,
  ValidationError,
} from '@threatlib/core';
import {
  type Clock,
  type EventBus,
  FeedScheduler,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  type Integration,
  type IntegrationHealth,
  inspectView,
  REDACTED,
  recordIssues,
  redactedView,
  systemClock,
} from '@threatlib/core/integration';
import { LRUCache } from 'lru-cache';
import type { CloudError } from '../errors/cloud-error.js';
import { type AzureSdk, loadAzureSdk } from './azure-sdk.js';
import { LegacyIndicatorApi } from './legacy-indicator-api.js';
import {
  type ResolvedSentinelIndicator,
  type SentinelIndicator,
  SentinelIndicatorSchema,
  type StixIndicatorObject,
  toStixIndicatorObject,
} from './sentinel-indicator.js';
import {
  type CloudSiemIntegrationOptions,
  parseCloudSiemOptions,
  type ResolvedCloudSiemOptions,
} from './sentinel-options.js';
import { SentinelRest } from './sentinel-rest.js';
import { MAX_OBJECTS_PER_UPLOAD, StixUploadApi, UPLOAD_LANE, type UploadOutcome } from './stix-upload-api.js';
import { ThreatPublisher, type ThreatPublisherStats } from './threat-publisher.js';
import { readWorkspaceId } from './workspace-id.js';

/** What `CloudSiemIntegration` is given besides its options (the client gives it these when it builds it). */
export interface CloudSiemRuntime {
  logger?: Logger;
  /** For the rate limit, the waits a 429 asks for and the batching. Default the real clock. */
  clock?: Clock;
  /** Where the options sit in a configuration (`integrations.cloudSiem`), for error paths. */
  optionsPath?: string;
  /** Refuses an endpoint the client's security options forbid. */
  checkEndpoint?: (url: string, what: string) => URL;
  /** The client's events: with them, `start()` publishes every threat the client concludes. */
  events?: EventBus<ThreatEvents>;
}

/** What `createIndicator` resolves with. */
export interface CreatedIndicator {
  /**
   * The indicator's id in Sentinel: its STIX id (`indicator--<UUID>`) through the upload API, its resource name (a
   * GUID) through the legacy API.
   */
  id: string;
  api: 'stix' | 'legacy';
}

/** What became of one indicator of `createIndicators`, at its index in the list. */
export type IndicatorResult =
  | ({ index: number; ok: true } & CreatedIndicator)
  | {
      index: number;
      ok: false;
      /** Its STIX id, when it got as far as having one. */
      id: string | undefined;
      /** `ValidationError` for input that is not an indicator; `CloudError` for what Sentinel or Azure answered. */
      error: CloudError | ValidationError;
    };

/** What `sendAlert` did with an alert's indicators. */
export interface AlertIndicatorsPublished {
  /** Indicators created or updated in Sentinel. */
  published: number;
  /** Indicators below `minConfidence` (or without a confidence), or published a moment ago already. */
  skipped: number;
}

/** How long an indicator counts as just published, so the alert about a threat does not publish it a second time. */
const RECENT_MS = 10 * 60_000;
const FLAGGING = new Set(['malicious', 'suspicious']);

/**
 * Microsoft Sentinel threat intelligence for threatlib: `createIndicator({pattern, labels, confidence, threatTypes})`
 * and `createIndicators(list)`, through Sentinel's STIX objects upload API by default (100 objects per request, its
 * 100 requests per minute kept by core's scheduler, 429s waited out, each record's refusal reported for that record)
 * or, with `api: 'legacy'`, through `@azure/arm-securityinsight`'s threat-intelligence indicator operations.
 *
 * As the integration of `integrations.cloudSiem`, it publishes every threat the client concludes at or above
 * `minConfidence` as a STIX indicator (core's `toStixBundle`: a deterministic id, so republishing updates), batched
 * for `batchIntervalMs`; `sendAlert` publishes an alert's indicators the same way.
 *
 * Failures are `CloudError`s naming the call and Azure's reason (Entra ID's `AADSTS…` for a refused sign-in); no
 * secret or token is ever in a message.
 *
 * @example
 * ```ts
 * import { ClientSecretCredential } from '@azure/identity';
 * const sentinel = new CloudSiemIntegration({
 *   subscriptionId: '<SUBSCRIPTION_ID>',
 *   resourceGroupName: 'rg-security',
 *   workspaceName: 'law-sentinel',
 *   credentials: new ClientSecretCredential('<TENANT_ID>', '<CLIENT_ID>', '<CLIENT_SECRET>'),
 * });
 * await sentinel.createIndicator({
 *   pattern: "[ipv4-addr:value = '198.51.100.7']",
 *   labels: ['malicious-activity'],
 *   confidence: 85,
 *   threatTypes: ['malware'],
 * });
 * ```
 */
export class CloudSiemIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The API indicators go through. */
  readonly api: 'stix' | 'legacy';
  readonly #options: ResolvedCloudSiemOptions;
  readonly #runtime: CloudSiemRuntime;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #secrets: string[] = [];
  readonly #sdk: AzureSdk;
  readonly #credential: TokenCredential;
  readonly #scheduler: FeedScheduler;
  readonly #rest: SentinelRest;
  readonly #upload: StixUploadApi;
  #legacy: LegacyIndicatorApi | undefined;
  #workspaceId: Promise<string> | undefined;
  readonly #publisher: ThreatPublisher;
  readonly #recent: LRUCache<string, true>;
  #closing = new AbortController();
  #started = false;
  readonly #onCorrelated = (correlation: Correlation) => this.#conclude(correlation);

  /**
   * @throws {ConfigurationError} `Configuration invalid: <path>.<option>: <reason>` for every option that is missing
   *   or wrong.
   */
  constructor(options: CloudSiemIntegrationOptions, runtime: CloudSiemRuntime = {}) {
    const where = runtime.optionsPath ?? '';
    const resolved = parseCloudSiemOptions(options, where);
    const at = (name: string) => (where ? `${where}.${name}` : name);
    runtime.checkEndpoint?.(resolved.endpoints.threatIntelligence, at('endpoints.threatIntelligence'));
    runtime.checkEndpoint?.(resolved.endpoints.resourceManager, at('endpoints.resourceManager'));
    this.#options = resolved;
    this.#runtime = runtime;
    this.api = resolved.api;
    this.#clock = runtime.clock ?? systemClock;
    this.#logger = runtime.logger ?? silentLogger;
    this.#sdk = loadAzureSdk(
      { clientSecret: !isTokenCredential(resolved.credentials), legacyApi: resolved.api === 'legacy' },
      where,
    );
    this.#credential = this.#credentialOf(resolved.credentials, at);
    const scope = `${resolved.audience.replace(/\/+$/, '')}/.default`;
    this.#scheduler = new FeedScheduler({
      concurrency: resolved.concurrency,
      clock: this.#clock,
      quotaFor: (lane) => (lane === UPLOAD_LANE ? { requestsPerMinute: resolved.requestsPerMinute } : {}),
    });
    this.#rest = new SentinelRest({
      credential: this.#credential,
      scope,
      timeout: resolved.timeout,
      sdk: this.#sdk.pipeline,
    });
    this.#upload = new StixUploadApi({
      rest: this.#rest,
      scheduler: this.#scheduler,
      clock: this.#clock,
      logger: this.#logger,
      endpoint: resolved.endpoints.threatIntelligence,
      sourceSystem: resolved.sourceSystem,
      workspaceId: () => this.#resolveWorkspaceId(),
      maxThrottleRetries: resolved.maxThrottleRetries,
      secrets: this.#secrets,
    });
    this.#publisher = new ThreatPublisher({
      publish: (objects) => this.#publish(objects),
      clock: this.#clock,
      logger: this.#logger,
      batchIntervalMs: resolved.batchIntervalMs,
      maxQueued: resolved.maxQueued,
      retries: resolved.retries,
      retryDelayMs: 1_000,
    });
    this.#recent = new LRUCache<string, true>({ max: 100_000, ttl: RECENT_MS, ttlAutopurge: false });
  }

  /**
   * Creates (or, for an id Sentinel holds, updates) one threat-intelligence indicator.
   *
   * @throws {ValidationError} `Invalid Sentinel indicator: <field>: <reason>` when the input is not an indicator.
   * @throws {CloudError} when Sentinel refused it (its reason) or could not be reached.
   */
  async createIndicator(indicator: SentinelIndicator): Promise<CreatedIndicator> {
    const [result] = await this.createIndicators([indicator]);
    if (!result) throw new Error('createIndicators gave no result for one indicator');
    if (!result.ok) throw result.error;
    return { id: result.id, api: result.api };
  }

  /**
   * Creates indicators in bulk (100 per request through the upload API) and says what became of each, in order: a
   * record Sentinel refused, or input that is not an indicator, fails alone while the others are created.
   */
  async createIndicators(indicators: readonly SentinelIndicator[]): Promise<IndicatorResult[]> {
    if (!Array.isArray(indicators)) {
      throw new ValidationError('Sentinel indicators', [{ path: '', message: 'expected a list of indicators' }]);
    }
    const now = new Date(this.#clock.now());
    const results: IndicatorResult[] = new Array(indicators.length);
    const valid: Array<{ index: number; object: StixIndicatorObject }> = [];
    indicators.forEach((input, index) => {
      const parsed = SentinelIndicatorSchema.safeParse(input);
      if (!parsed.success) {
        results[index] = {
          index,
          ok: false,
          id: undefined,
          error: new ValidationError('Sentinel indicator', recordIssues(parsed.error.issues)),
        };
        return;
      }
      valid.push({ index, object: toStixIndicatorObject(parsed.data as ResolvedSentinelIndicator, now) });
    });
    const outcomes = await this.#sendAll(valid.map((v) => v.object));
    valid.forEach(({ index, object }, i) => {
      const outcome = outcomes[i] as UploadOutcome & { id?: string };
      results[index] = outcome.ok
        ? { index, ok: true, id: outcome.id ?? object.id, api: this.api }
        : { index, ok: false, id: object.id, error: outcome.error };
    });
    return results;
  }

  /** Starts publishing the threats the client concludes (when it was given the client's events). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    if (this.#closing.signal.aborted) this.#closing = new AbortController();
    this.#runtime.events?.on('correlated', this.#onCorrelated);
  }

  /** Stops listening, sends what is queued once, and releases its connections and timers. */
  async stop(): Promise<void> {
    this.#runtime.events?.off('correlated', this.#onCorrelated);
    this.#started = false;
    try {
      await this.#publisher.stop();
    } finally {
      this.#closing.abort(new Error('CloudSiemIntegration stopped'));
      this.#scheduler.close();
      this.#rest.close();
    }
  }

  /**
   * What `JSON.stringify` writes of the integration: the workspace it publishes to and the API, with
   * `credentials: '[redacted]'` (the client secret or credential object, and its tokens, stay inside).
   */
  toJSON(): Record<string, unknown> {
    const { subscriptionId, resourceGroupName, workspaceName, endpoints } = this.#options;
    // An endpoint URL could carry a user and password: shown without them.
    const shownEndpoints = redactedView(endpoints);
    return {
      api: this.api,
      subscriptionId,
      resourceGroupName,
      workspaceName,
      endpoints: shownEndpoints,
      credentials: REDACTED,
    };
  }

  /** What `util.inspect` and `console.log` show of the integration: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('CloudSiemIntegration', this.toJSON(), depth, options, inspect);
  }

  /** Resolves once every threat queued so far is published, refused or given up on. */
  flush(): Promise<void> {
    return this.#publisher.flush();
  }

  /** What the publishing of concluded threats has done. */
  stats(): ThreatPublisherStats {
    return this.#publisher.stats;
  }

  /** Unhealthy while whole batches fail (Sentinel refusing the app, unreachable), with the reason. */
  health(): IntegrationHealth {
    const stats = this.#publisher.stats;
    const failure = this.#publisher.lastFailure;
    return {
      healthy: failure === undefined,
      detail: failure ? failure.message : `${stats.published} indicators published to Sentinel (${this.api} API)`,
      api: this.api,
      ...stats,
    };
  }

  /**
   * Publishes the alert's indicators whose confidence is at least `minConfidence` as Sentinel indicators; those the
   * integration published in the last ten minutes (the threat the alert is about) are not sent again.
   *
   * @throws {CloudError} when any of them could not be published (the client retries the delivery).
   */
  async sendAlert(alert: Alert): Promise<AlertIndicatorsPublished> {
    const metadataVerdict = (alert.metadata as { verdict?: unknown } | undefined)?.verdict;
    const verdict = FLAGGING.has(metadataVerdict as string)
      ? (metadataVerdict as 'malicious' | 'suspicious')
      : 'suspicious';
    const objects: StixIndicatorObject[] = [];
    let skipped = 0;
    for (const indicator of alert.indicators ?? []) {
      if (indicator.confidence === undefined || indicator.confidence < this.#options.minConfidence) {
        skipped += 1;
        continue;
      }
      const sources = [...(indicator.sources ?? []), ...(indicator.source ? [indicator.source] : [])];
      const object = this.#stixObject({
        indicator: indicator.value,
        type: indicator.type,
        confidence: indicator.confidence,
        verdict,
        startedAt: alert.timestamp,
        contributions: sources.map((feed) => ({ feed, status: 'ok', verdict })),
      });
      if (this.#recent.has(object.id)) skipped += 1;
      else objects.push(object);
    }
    const outcomes = await this.#sendAll(objects);
    const failed = outcomes.find((o): o is { ok: false; error: CloudError } => !o.ok);
    if (failed) throw failed.error;
    for (const object of objects) this.#recent.set(object.id, true);
    return { published: objects.length, skipped };
  }

  /** Sentinel's upload API is write-only: it knows nothing to add (resolves undefined). */
  async enrichIndicator(): Promise<undefined> {
    return undefined;
  }

  /** A concluded threat: queued for Sentinel when it is a threat at `minConfidence` or more. Never throws. */
  #conclude(correlation: Correlation): void {
    if (!correlation.isThreat || correlation.confidence < this.#options.minConfidence) return;
    try {
      const object = this.#stixObject(correlation);
      if (this.#publisher.add(object)) this.#recent.set(object.id, true);
    } catch (error) {
      this.#logger.error(
        { err: error, indicator: correlation.indicator },
        `the STIX indicator of ${correlation.indicator} could not be made: ${(error as Error).message}`,
      );
    }
  }

  /** The STIX indicator core writes for a correlation. */
  #stixObject(correlation: StixCorrelationInput): StixIndicatorObject {
    const bundle = toStixBundle([correlation], { now: this.#clock.now() });
    const indicator = bundle.objects.find((o): o is StixIndicator => o.type === 'indicator');
    if (!indicator) throw new Error('toStixBundle wrote no indicator');
    return indicator;
  }

  /** Objects to Sentinel: 100 per upload request, or one legacy call each; outcomes in order. */
  async #sendAll(objects: readonly StixIndicatorObject[]): Promise<Array<UploadOutcome & { id?: string }>> {
    const signal = this.#closing.signal;
    if (this.api === 'legacy') {
      const legacy = this.#legacyApi();
      return Promise.all(
        objects.map(async (object) => {
          try {
            return { ok: true as const, id: await legacy.create(object, signal) };
          } catch (error) {
            return { ok: false as const, error: error as CloudError };
          }
        }),
      );
    }
    const chunks: StixIndicatorObject[][] = [];
    for (let i = 0; i < objects.length; i += MAX_OBJECTS_PER_UPLOAD) {
      chunks.push(objects.slice(i, i + MAX_OBJECTS_PER_UPLOAD));
    }
    const answered = await Promise.all(chunks.map((chunk) => this.#upload.upload(chunk, signal)));
    return answered.flat();
  }

  #publish(objects: readonly StixIndicatorObject[]) {
    return this.#sendAll(objects);
  }

  #legacyApi(): LegacyIndicatorApi {
    const arm = this.#sdk.arm;
    // loadAzureSdk loads it whenever api is 'legacy', the only way here.
    if (!arm) throw new Error('@azure/arm-securityinsight is needed for the legacy API and was not loaded');
    this.#legacy ??= new LegacyIndicatorApi({
      sdk: arm,
      credential: this.#credential,
      subscriptionId: this.#options.subscriptionId,
      resourceGroupName: this.#options.resourceGroupName,
      workspaceName: this.#options.workspaceName,
      endpoint: this.#options.endpoints.resourceManager,
      scope: `${this.#options.audience.replace(/\/+$/, '')}/.default`,
      agent: this.#rest.agent,
      scheduler: this.#scheduler,
      clock: this.#clock,
      logger: this.#logger,
      source: this.#options.sourceSystem,
      maxThrottleRetries: this.#options.maxThrottleRetries,
      secrets: this.#secrets,
    });
    return this.#legacy;
  }

  /** The configured workspace id, else the one ARM says (read once; a failed read is tried again next time). */
  #resolveWorkspaceId(): Promise<string> {
    if (this.#options.workspaceId) return Promise.resolve(this.#options.workspaceId);
    if (!this.#workspaceId) {
      const reading = readWorkspaceId(
        this.#rest,
        {
          resourceManager: this.#options.endpoints.resourceManager,
          subscriptionId: this.#options.subscriptionId,
          resourceGroupName: this.#options.resourceGroupName,
          workspaceName: this.#options.workspaceName,
        },
        this.#secrets,
        this.#closing.signal,
      );
      this.#workspaceId = reading;
      reading.catch(() => {
        if (this.#workspaceId === reading) this.#workspaceId = undefined;
      });
    }
    return this.#workspaceId;
  }

  #credentialOf(credentials: ResolvedCloudSiemOptions['credentials'], at: (name: string) => string): TokenCredential {
    if (isTokenCredential(credentials)) return credentials;
    const { tenantId, clientId, clientSecret, authorityHost } = credentials as Exclude<
      ResolvedCloudSiemOptions['credentials'],
      TokenCredential
    >;
    if (authorityHost !== undefined) this.#runtime.checkEndpoint?.(authorityHost, at('credentials.authorityHost'));
    this.#secrets.push(clientSecret);
    const identity = this.#sdk.identity;
    // loadAzureSdk loads it whenever the credentials are a client secret, the only way here.
    if (!identity) throw new Error('@azure/identity is needed for a client secret and was not loaded');
    return new identity.ClientSecretCredential(tenantId, clientId, clientSecret, {
      ...(authorityHost === undefined
        ? {}
        : // A configured authority (a sovereign or private cloud's) is used as it is, not looked up in the public
          // cloud's instance metadata first.
          { authorityHost, disableInstanceDiscovery: true }),
    });
  }
}

/** Whether `credentials` are a credential object (anything with `getToken`) rather than a client secret's options. */
function isTokenCredential(credentials: ResolvedCloudSiemOptions['credentials']): credentials is TokenCredential {
  return typeof (credentials as TokenCredential).getToken === 'function';
}
