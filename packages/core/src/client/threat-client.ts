import type { AlertStore } from '../alerts/alert-store.js';
import { MemoryAlertStore } from '../alerts/memory-alert-store.js';
import type { CacheStore } from '../cache/cache-store.js';
import { createCache } from '../cache/create-cache.js';
import { Cluster } from '../cluster/cluster.js';
import { ENVIRONMENT_OPTIONS, type Environment } from '../config/environment.js';
import { type LoadConfigOptions, loadConfig } from '../config/load-config.js';
import { parseConfig } from '../config/parse-config.js';
import { redactedConfig } from '../config/redacted-config.js';
import type { ApiKeyConfig, ResolvedConfig, ThreatConfig } from '../config/schema.js';
import { type ConfigWarning, validateConfig } from '../config/validate-config.js';
import type { Correlation } from '../correlation/correlate.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { IntegrationError } from '../errors/integration-error.js';
import type { AuditEvent } from '../events/audit-event.js';
import { EventBus } from '../events/event-bus.js';
import type { ThreatEventHandler, ThreatEventName, ThreatEvents } from '../events/threat-events.js';
import { BUILTIN_FEED_LIST } from '../feeds/builtin-feeds.js';
import type { Feed } from '../feeds/feed.js';
import { FeedRegistry } from '../feeds/feed-registry.js';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import type {
  Integration,
  IntegrationClass,
  IntegrationContext,
  IntegrationHealth,
  IntegrationRegistry,
} from '../integration/integration.js';
import { type IntegrationPackageLoader, importIntegrationPackage } from '../integration/load-integration-package.js';
import { TaxiiListSource } from '../lists/taxii/taxii-list-source.js';
import { withCategory } from '../logging/categories.js';
import { closeLogger, createLogger } from '../logging/create-logger.js';
import type { Logger } from '../logging/logger.js';
import { checkHealth } from '../monitoring/check-health.js';
import { createMonitoringAlerter } from '../monitoring/create-monitoring-alerter.js';
import type { HealthReport } from '../monitoring/health-report.js';
import type { MonitoringAlertStats } from '../monitoring/monitoring-alert.js';
import type { MonitoringAlerter } from '../monitoring/monitoring-alerter.js';
import type { OAuth2TokenSource } from '../oauth2/client-credentials.js';
import { clientTokenSource } from '../oauth2/client-token-source.js';
import { shownInput } from '../records/shown-input.js';
import type { Clock } from '../scheduler/clock.js';
import { FeedScheduler } from '../scheduler/feed-scheduler.js';
import { quotaFor } from '../scheduler/quota-for.js';
import { QuotaLowWatch } from '../scheduler/quota-low.js';
import { type FeedQuotaReport, quotaReports } from '../scheduler/quota-report.js';
import { FeedPipeline, type FeedStatusReport } from '../scout/feed-pipeline.js';
import { prepareLists } from '../scout/prepare-lists.js';
import {
  type LocalSource,
  type Prefilter,
  ScoutEngine,
  type ScoutOptions,
  type ScoutResult,
} from '../scout/scout-engine.js';
import { type ScoutManyItem, type ScoutManyOptions, streamScouts } from '../scout/scout-many.js';
import { checkEndpoint } from '../security/endpoint-policy.js';
import { INSPECT_CUSTOM, type InspectFunction, type InspectOptions, inspectView } from '../security/redacted-view.js';
import { Vault } from '../vault/vault.js';
import { VaultLockedError } from '../vault/vault-locked-error.js';
import { type VaultOptions, vaultClientConfig } from '../vault/vault-options.js';
import { AddedLists, type ListSource } from './added-lists.js';
import { ClientAlerting, type ClientAlerts } from './alerting.js';
import { CampaignTracking } from './campaign-tracking.js';
import type { CorrelationResult } from './correlation-result.js';
import { integrationContext } from './integration-context.js';
import { ClientIntegrations } from './integrations.js';
import { clockOf, layeredConfig } from './layered-config.js';
import { type ListStatus, listStatus } from './list-status.js';
import { vaultInput, withVault } from './vault-factories.js';

export type { CorrelationResult } from './correlation-result.js';

/** Options of the {@link ThreatClient} constructor that are not part of the configuration. */
export interface ThreatClientOptions {
  /**
   * Environment variables to lay under the constructor's configuration (default `process.env`); `false` ignores
   * the environment.
   */
  env?: Environment | false;
  /** Logger to use instead of the one `logging` describes (any pino-compatible logger). */
  logger?: Logger;
  /** Alert store to use instead of the in-memory one (`client.alerts` keeps its alerts there). */
  alertStore?: AlertStore;
  /** Cache to use instead of the one `caching` describes, e.g. one shared by several clients. */
  cache?: CacheStore;
  /**
   * Clock for quota windows, pauses, retries, breakers, cache expiry and timestamps (default: the real one). Tests
   * pass a `ManualClock` and advance it instead of sleeping.
   */
  clock?: Clock;
  /** Shorthand for a clock whose time is `now()` and whose timers are real. */
  now?: () => number;
  /**
   * A vault holding API keys: feeds whose keys it holds get them from it (before `apiKeys`), and while it is locked
   * a lookup that needs one rejects with `VaultLockedError`. `ThreatClient.createVault` and `openVault` set this.
   */
  vault?: Vault;
  /**
   * Imports the package of an integration built from `integrations` (`@threatlib/siem` for `integrations.siem`...).
   * Default: `import(name)` from `@threatlib/core`'s own location. Where that cannot see the application's packages
   * (Yarn Plug'n'Play, a bundler), pass `(name) => import(name)` written in the application; tests pass fakes.
   */
  loadIntegrationPackage?: IntegrationPackageLoader;
}

/**
 * What `ThreatClient.createVault` and `ThreatClient.openVault` resolve to. `trojan` is `client` under the name the
 * interface threatlib follows gives it.
 */
export interface VaultClient {
  client: ThreatClient;
  vault: Vault;
  trojan: ThreatClient;
}

/** The lifecycle state of a client. */
export type ClientState = 'idle' | 'starting' | 'running' | 'stopping';

/** Health of one registered integration, as `client.integrationHealth()` reports it. */
export interface IntegrationHealthReport extends IntegrationHealth {
  name: string;
}

/** Reads a client's configuration with its secrets (set by the class, which alone sees its private fields). */
let readConfig: (client: ThreatClient) => ResolvedConfig;

/**
 * The threatlib client: holds the validated configuration, the event bus, the integrations and the shared HTTP
 * connection pool.
 *
 * Configuration precedence, lowest first: schema defaults, a config file profile (`loadConfig`), environment
 * variables, the object passed here.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({ sources: ['feed_urls', 'feed_otx'], apiKeys: { feed_otx: process.env.OTX } });
 * client.on('threatFound', (threat) => console.log(threat.indicator, threat.severity));
 * await client.start();
 * // ...
 * await client.stop();
 * ```
 */
export class ThreatClient {
  readonly #config: ResolvedConfig;
  #shownConfig: ResolvedConfig | undefined;
  /** Warnings the configuration deserved (also logged at construction). */
  readonly warnings: readonly ConfigWarning[];
  /** The client's logger. */
  readonly logger: Logger;
  /**
   * The client's alerts: an alert store whose `add` also delivers the alert to every started integration, with
   * `redeliver(id)` for deliveries that failed. The client adds one by itself for each threat it concludes (see
   * `alerting`).
   */
  readonly alerts: ClientAlerts;
  /** The client's event bus; `on`, `once` and `off` are shortcuts to it. */
  readonly events: EventBus<ThreatEvents>;

  readonly #integrations: ClientIntegrations;
  readonly #alerting: ClientAlerting;
  /** The alert store the client was made with, used whenever no started integration offers one. */
  readonly #alertStore: AlertStore;
  readonly #feeds = new FeedRegistry(BUILTIN_FEED_LIST);
  readonly #registeredSources: string[] = [];
  readonly #scheduler: FeedScheduler;
  readonly #pipeline: FeedPipeline;
  readonly #cache: CacheStore | undefined;
  readonly #engine: ScoutEngine;
  readonly #clock: Clock;
  readonly #vault: Vault | undefined;
  readonly #alerter: MonitoringAlerter | undefined;
  readonly #oauth2: OAuth2TokenSource | undefined;
  readonly #campaigns: CampaignTracking | undefined;
  /** What the client shares with the other clients of its cluster (`cluster.enabled`). */
  readonly #cluster: Cluster | undefined;
  #prepared: Promise<{ prefilter: Prefilter; lists: LocalSource[] }> | undefined;
  readonly #added: AddedLists;
  /** The configured lists and the added ones, for lookups: made again when either changes. */
  #forScout:
    | { from: unknown; version: number; lists: Promise<{ prefilter: Prefilter; lists: LocalSource[] }> }
    | undefined;
  #http: HttpClient | undefined;
  #state: ClientState = 'idle';
  /** While `start()` runs: resolves when it has ended, either way (alerts raised meanwhile wait for it). */
  #starting: Promise<void> | undefined;
  /** The logger this client made (not one it was given): its transports are closed by `stop()`. */
  #ownLogger: Logger | undefined;

  /**
   * @throws {ConfigurationError} `Configuration invalid: <path>: <reason>; ...` when the configuration (or a
   *   threatlib environment variable) is invalid.
   */
  constructor(config: ThreatConfig, options: ThreatClientOptions = {}) {
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      throw new ConfigurationError([
        {
          path: '(root)',
          message: `expected a configuration object, got ${config === undefined ? 'undefined' : shownInput(config)}`,
        },
      ]);
    }
    const { config: input, ignored } = layeredConfig(config, options);
    this.#config = parseConfig(input);
    // Log lines can carry indicators and feed answers: the webhook transport obeys enforceHttps like a feed does.
    if (!options.logger) {
      for (const [i, transport] of this.#config.logging.transports.entries()) {
        if (transport.type === 'webhook')
          checkEndpoint(transport.url, `logging.transports[${i}].url`, this.#config.security);
      }
    }
    this.logger = options.logger ?? createLogger(this.#config.logging);
    if (!options.logger) this.#ownLogger = this.logger;
    const vault = options.vault;
    this.#vault = vault;
    // A key the vault holds is not missing, whatever apiKeys says.
    this.warnings = [
      ...ignored.map(
        (issue): ConfigWarning => ({
          code: 'ENV_VARIABLE_IGNORED',
          path: issue.path,
          message: `${issue.path}: ${issue.message}; not used, since the configuration given to the constructor sets ${ENVIRONMENT_OPTIONS[issue.path] ?? 'its option'}`,
        }),
      ),
      ...validateConfig(input, { hasKey: (feed) => vault?.has(feed) === true }),
    ];
    for (const warning of this.warnings) {
      this.logger.warn({ category: 'config', code: warning.code, path: warning.path }, warning.message);
    }
    this.events = new EventBus<ThreatEvents>(withCategory(this.logger, 'events'));
    for (const [event, handler] of Object.entries(this.#config.events)) {
      if (handler) this.events.on(event as ThreatEventName, handler as ThreatEventHandler<ThreatEventName>);
    }
    const alertStore = options.alertStore ?? new MemoryAlertStore({ logger: withCategory(this.logger, 'client') });
    this.#alertStore = alertStore;
    this.#integrations = new ClientIntegrations({
      logger: this.logger,
      configured: () => this.#config.integrations,
      contextFor: (name) => this.#contextFor(name),
      load: options.loadIntegrationPackage ?? importIntegrationPackage,
    });
    this.#clock = clockOf(options);
    const cluster = this.#config.cluster.enabled
      ? new Cluster({
          config: this.#config,
          clock: this.#clock,
          logger: withCategory(this.logger, 'client'),
          events: this.events,
        })
      : undefined;
    this.#cluster = cluster;
    this.#campaigns = CampaignTracking.of({ config: this.#config, clock: this.#clock, events: this.events, cluster });
    this.#alerting = new ClientAlerting({
      store: alertStore,
      config: this.#config,
      clock: this.#clock,
      logger: this.logger,
      targets: () => this.#integrations.started(),
      ready: () => this.#starting ?? Promise.resolve(),
      sharedDedupe: cluster?.alertDedupe,
    });
    this.alerts = this.#alerting.alerts;
    const quotaLow = new QuotaLowWatch(this.#config.performance.rateLimit.quotaLowThreshold, (event) =>
      this.events.emit('quotaLow', event),
    );
    const checkQuota = (feed: string) =>
      quotaLow.check(feed, this.#scheduler.status(feed).quota, this.#scheduler.gate(feed)?.shared ?? false);
    this.#scheduler = new FeedScheduler({
      concurrency: this.#config.performance.maxConcurrency,
      clock: this.#clock,
      quotaFor: (feed) => quotaFor(this.#config, feed),
      // A cluster's figures are read from Redis in the background: checked again once they are, other clients'
      // requests included.
      ...(cluster
        ? { gateFor: (feed: string) => cluster.gateFor(feed, quotaFor(this.#config, feed), () => checkQuota(feed)) }
        : {}),
      onSent: checkQuota,
    });
    const makeCache = () => createCache(this.#config.caching, { now: () => this.#clock.now() });
    this.#cache = options.cache ?? (cluster ? cluster.verdictCache(makeCache) : makeCache());
    this.#cache?.onEvict?.(() => this.events.emit('cacheEvicted'));
    // Refuse an insecure feed endpoint now rather than at the first lookup.
    for (const [feed, entry] of Object.entries(this.#config.apiKeys)) {
      if (typeof entry === 'object' && entry.endpoint)
        checkEndpoint(entry.endpoint, `apiKeys.${feed}.endpoint`, this.#config.security);
    }
    for (const [i, list] of this.#config.lists.entries()) {
      if (list.misp?.url !== undefined) checkEndpoint(list.misp.url, `lists[${i}].misp.url`, this.#config.security);
      if (list.taxii !== undefined) checkEndpoint(list.taxii.url, `lists[${i}].taxii.url`, this.#config.security);
    }
    this.#added = new AddedLists({ config: this.#config, logger: withCategory(this.logger, 'lists') });
    this.#alerter = createMonitoringAlerter(this.#config, {
      clock: this.#clock,
      // Alerts are about feeds (a breaker, a refused key): their lines go with the feed lines.
      logger: withCategory(this.logger, 'feed'),
      feedName: (feed) => this.#feeds.get(feed)?.name,
    });
    const client = this;
    // Made now so that an insecure token endpoint is refused here; no request is sent before getToken().
    this.#oauth2 = clientTokenSource({
      config: this.#config,
      vault,
      get http() {
        return client.http;
      },
      clock: this.#clock,
    });
    this.#pipeline = new FeedPipeline({
      config: this.#config,
      get http() {
        return client.http;
      },
      logger: withCategory(this.logger, 'feed'),
      events: this.events,
      scheduler: this.#scheduler,
      cache: this.#cache,
      clock: this.#clock,
      ...(this.#alerter ? { monitor: this.#alerter } : {}),
      ...(cluster ? { flights: cluster.flights, breakerFor: cluster.breakerFor.bind(cluster) } : {}),
    });
    this.#engine = new ScoutEngine({
      config: this.#config,
      pipeline: this.#pipeline,
      sources: () => this.#activeFeeds(),
      prepared: () => this.#listsForScout(),
      listWeight: (feed) => this.#added.weightOf(feed),
      keyFor: async (feed) => {
        // Throws VaultLockedError while locked: the engine lets it reject the lookup instead of sending no key.
        if (vault?.has(feed)) return vault.get(feed);
        const entry = this.#config.apiKeys[feed];
        return typeof entry === 'string' ? entry : entry?.key;
      },
      checkKeys: (feeds) => {
        if (!vault?.isLocked) return;
        const locked = feeds.filter((feed) => vault.has(feed.id)).map((feed) => feed.id);
        if (locked.length > 0) {
          throw new VaultLockedError(
            `The vault is locked: unlock it before asking ${locked.join(', ')} (their keys are in the vault); no request was sent`,
            { feeds: locked },
          );
        }
      },
      now: () => this.#clock.now(),
      clock: this.#clock,
    });
    if (vault) {
      vault.events.on('locked', () => this.events.emit('vaultLocked'));
      vault.events.on('audit', (event) => this.#audit(event));
      vault.events.on('error', (error, during) =>
        this.logger.error(
          { category: 'vault', err: error, during },
          `vault ${during} failed; the vault keeps its current keys`,
        ),
      );
    }
  }

  /**
   * Makes an encrypted vault holding `apiKeys` and a client whose feeds take their keys from it. Keys are
   * encrypted with AES-256-GCM under a key derived from `password` (argon2id by default, or PBKDF2); the vault
   * starts unlocked, locks itself after `lockTimeout` ms without use (when `autoLock`), and rotates when
   * `rotationEnabled`. Save it with `vault.save(path)` (or give `vaultOptions.path`) and reopen it with
   * {@link ThreatClient.openVault}.
   *
   * `apiKeys` maps feed ids to keys; an object entry (`{key, endpoint, timeout, ...}`) puts its key in the vault and
   * its other settings in the client's `apiKeys`. `sources` defaults to the built-in feeds among them.
   *
   * @throws {ConfigurationError} for an invalid configuration or vault option.
   * @throws {ValidationError} for an empty password or key, or a malformed feed id.
   * @example
   * ```ts
   * const { client, vault } = await ThreatClient.createVault(process.env.VAULT_PASSWORD, {
   *   feed_otx: otxKey,
   *   feed_scan: { key: vtKey, timeout: 10_000 },
   * }, { lockTimeout: 600_000, path: 'threatlib.vault' });
   * await vault.save();
   * ```
   */
  static async createVault(
    password: string,
    apiKeys: Readonly<Record<string, string | ApiKeyConfig | undefined>>,
    vaultOptions: VaultOptions = {},
  ): Promise<VaultClient> {
    const { keys, config } = vaultInput(apiKeys, vaultOptions);
    return withVault(
      config,
      vaultOptions,
      'vault_created',
      (settings) => Vault.create(password, keys, settings),
      ThreatClient.#adopt,
    );
  }

  /**
   * Opens the vault file at `path` with `password` and makes a client whose feeds take their keys from it. The
   * vault opens with the cipher and KDF parameters recorded in the file. `vaultOptions` are those of
   * {@link ThreatClient.createVault}; `sources` defaults to the built-in feeds whose keys the vault holds.
   *
   * @throws {VaultAuthError} when the password is wrong.
   * @throws {VaultCorruptError} when the file is damaged or was tampered with. In both cases the file is untouched.
   */
  static async openVault(path: string, password: string, vaultOptions: VaultOptions = {}): Promise<VaultClient> {
    return withVault(
      vaultClientConfig(vaultOptions),
      vaultOptions,
      'vault_opened',
      (settings) => Vault.open(path, password, settings),
      ThreatClient.#adopt,
    );
  }

  /** The client of a vault `withVault` made: it owns the logger made for the vault, and records the vault's audit. */
  static #adopt(
    config: ThreatConfig,
    options: ThreatClientOptions,
    made: { ownLogger: Logger | undefined; audit: () => AuditEvent },
  ): ThreatClient {
    const client = new ThreatClient(config, options);
    if (made.ownLogger) client.#ownLogger = made.ownLogger;
    client.#audit(made.audit());
    return client;
  }

  /**
   * The configuration in force, every default filled in, with its secrets shown as `[redacted]`: API keys,
   * passwords, client secrets, tokens, header values and the passwords of URLs (see `redactedView`), so that logging
   * it (or the client) shows no secret. Integrations get the configuration with its secrets from their context.
   */
  get config(): ResolvedConfig {
    this.#shownConfig ??= redactedConfig(this.#config);
    return this.#shownConfig;
  }

  /** The vault the client takes API keys from, if it has one. */
  get vault(): Vault | undefined {
    return this.#vault;
  }

  /**
   * Reads a profile from `threatlib.config.js` (see `loadConfig`), lays the environment over it and makes a client.
   */
  static async fromConfigFile(options: LoadConfigOptions = {}, clientOptions: ThreatClientOptions = {}) {
    const env = clientOptions.env === false ? {} : clientOptions.env;
    const config = await loadConfig({ ...options, ...(env ? { env } : {}) });
    return new ThreatClient(config, clientOptions);
  }

  /** Where the client is in its lifecycle. */
  get state(): ClientState {
    return this.#state;
  }

  /** How many feed requests may run at once (see {@link updateConcurrency}). */
  get concurrency(): number {
    return this.#scheduler.concurrency;
  }

  /**
   * Per feed: circuit breaker state and failures, what is left of each quota window, a pause the feed asked for,
   * queued and running requests, request counters (sent, retries, cache hits, deduplicated, results by status), the
   * last error, and latency p50/p95. The REST `/feeds/status` returns this.
   */
  feedStatus(): FeedStatusReport[] {
    return this.#pipeline.status(
      this.#activeFeeds().map((feed) => ({
        feed,
        configured: !feed.requiresKey || this.#vault?.has(feed.id) === true || this.#hasConfiguredKey(feed.id),
      })),
    );
  }

  /**
   * What is left of each feed's quota, per window: the cluster's figures when `cluster` is on and its Redis answers
   * (shared by every client with the same key prefix), else this client's own. The REST `GET /quotas` returns this.
   *
   * @example
   * ```ts
   * for (const { feed, windows } of await client.quotas()) console.log(feed, windows.map((w) => `${w.window}: ${w.remaining}/${w.limit}`));
   * ```
   */
  async quotas(): Promise<FeedQuotaReport[]> {
    return quotaReports(
      this.#scheduler,
      this.#activeFeeds().map((feed) => feed.id),
    );
  }

  /** Ids of the feeds a scout asks, in order: `sources`, then feeds added with {@link registerFeed}. */
  get sources(): string[] {
    return this.#activeFeeds().map((feed) => feed.id);
  }

  /**
   * Adds a third-party feed through the same contract as the built-in ones; it is asked by every later scout.
   *
   * @throws {ConfigurationError} naming what is wrong when `feed` does not implement {@link Feed}, or its id is
   *   taken.
   */
  registerFeed(feed: Feed): void {
    this.#feeds.add(feed);
    this.#registeredSources.push(feed.id);
    this.#audit({ action: 'config_changed', at: this.#now(), option: 'sources', detail: { added: feed.id } });
  }

  /**
   * Asks every configured source that supports the indicator's type, concurrently within `maxConcurrency`, and
   * returns what each said. A warninglisted indicator is answered clean with no feed asked. Fires `threatFound`
   * once if the correlation of the answers concludes a threat, and raises its alert (see `alerting`).
   *
   * Resolves within `options.timeoutMs` (default `performance.lookupTimeout`), whatever the feeds do: a feed that has
   * not answered by then answers `timeout`, or `rate_limited` with `error.retryAt` while it is paused or out of quota.
   *
   * @throws {InvalidIndicatorError} when `indicator` is not a valid indicator.
   * @throws the reason of `options.signal` as soon as it aborts (the call's requests are aborted with it).
   */
  async scout(indicator: string, options: ScoutOptions = {}): Promise<ScoutResult> {
    const { scout, correlation } = await this.#engine.run(indicator, options);
    this.#announce(correlation, scout.results);
    return scout;
  }

  /**
   * Scouts the indicator and combines the answers into one explainable verdict (see the README for the formula).
   * Fires `threatFound` once when it concludes a threat, with `severity` = the risk score, and raises its alert: stored
   * in `client.alerts` and delivered to every started integration in the background (see `alerting`). Bounded and
   * cancellable as {@link scout} is; a correlation no feed answered is `unknown`, never `clean`.
   *
   * @throws {InvalidIndicatorError} when `indicator` is not a valid indicator.
   * @throws the reason of `options.signal` as soon as it aborts.
   */
  async correlate(indicator: string, options: ScoutOptions = {}): Promise<CorrelationResult> {
    const { scout, correlation } = await this.#engine.run(indicator, options);
    const result = { ...correlation, results: scout.results, startedAt: scout.startedAt, durationMs: scout.durationMs };
    // The caller holds the result: `alerts.deliveryOf(result, name)` finds the alert it raised by it.
    this.#announce(correlation, scout.results, result);
    return result;
  }

  /**
   * Scouts every input of a (possibly endless, possibly async) sequence and yields each outcome as it completes,
   * with backpressure: inputs are pulled only as results are consumed, so memory stays bounded. Invalid inputs
   * yield `ok: false` with the reason; the run goes on. Each input is a lookup with its own time limit (`timeoutMs`);
   * `signal` ends the iteration at once with its reason.
   *
   * @example
   * ```ts
   * for await (const item of client.scoutMany(readLines('iocs.txt'), { onProgress: (p) => bar.update(p.completed) })) {
   *   if (item.ok) console.log(item.result.indicator, item.result.results.length);
   * }
   * ```
   */
  scoutMany(
    inputs: Iterable<string> | AsyncIterable<string>,
    options: ScoutManyOptions & Pick<ScoutOptions, 'type' | 'includeRaw' | 'timeoutMs' | 'deadline'> = {},
  ): AsyncGenerator<ScoutManyItem<ScoutResult>, void, undefined> {
    const { onProgress, window, signal, ...scoutOptions } = options;
    return streamScouts(inputs, (input) => this.scout(input, { ...scoutOptions, ...(signal ? { signal } : {}) }), {
      window: window ?? this.concurrency,
      ...(onProgress ? { onProgress } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * OAuth 2.0 access tokens for the client's own calls to endpoints that need them (an integration's), when
   * `security.authentication.type` is `oauth2`: obtained by the client credentials grant from `tokenEndpoint` for
   * `clientId` and `scopes`, cached until shortly before they expire. The secret is the vault's
   * `oauth2_client_secret`, else `clientSecret` (or `THREATLIB_OAUTH2_CLIENT_SECRET`). Undefined otherwise.
   *
   * @example
   * ```ts
   * const token = await client.oauth2?.getToken();
   * ```
   */
  get oauth2(): OAuth2TokenSource | undefined {
    return this.#oauth2;
  }

  /** The client's pooled HTTP client, opened on first use and closed by `stop()`. */
  get http(): HttpClient {
    if (!this.#http) {
      if (!this.#config.security.validateCertificates) {
        this.logger.warn(
          { path: 'security.validateCertificates' },
          'TLS certificate verification is off for this client: anyone on the network path can impersonate a feed',
        );
      }
      this.#http = createHttpClient({
        validateCertificates: this.#config.security.validateCertificates,
        // As many connections per origin as requests may run at once (50 at most): a request the scheduler has let
        // go must not then wait in the pool for a connection and leave in a burst with others.
        connectionsPerOrigin: 50,
      });
    }
    return this.#http;
  }

  /** Calls `handler` every time `event` is emitted. Handlers may be async; their failures are logged. */
  on<E extends ThreatEventName>(event: E, handler: (...args: ThreatEvents[E]) => unknown): this {
    this.events.on(event, handler);
    return this;
  }

  /** Calls `handler` the next time `event` is emitted. */
  once<E extends ThreatEventName>(event: E, handler: (...args: ThreatEvents[E]) => unknown): this {
    this.events.once(event, handler);
    return this;
  }

  /** Removes a handler added with `on` or `once`. */
  off<E extends ThreatEventName>(event: E, handler: (...args: ThreatEvents[E]) => unknown): this {
    this.events.off(event, handler);
    return this;
  }

  /**
   * Changes how many feed requests may run at once. Work already queued is kept and runs under the new limit.
   *
   * @throws {ConfigurationError} unless `n` is a whole number from 1 to 50.
   */
  updateConcurrency(n: number): void {
    if (!Number.isInteger(n) || n < 1 || n > 50) {
      throw new ConfigurationError([
        { path: 'performance.maxConcurrency', message: `expected a whole number from 1 to 50, got ${String(n)}` },
      ]);
    }
    this.#scheduler.setConcurrency(n);
    this.logger.info({ maxConcurrency: n }, 'concurrency updated');
    this.#audit({
      action: 'config_changed',
      at: this.#now(),
      option: 'performance.maxConcurrency',
      detail: { value: n },
    });
  }

  /**
   * Registers an integration under `name` and instantiates it with `options` (default:
   * `config.integrations[name]`) and a context giving it the client's logger, events and HTTP pool.
   *
   * @throws {IntegrationError} when the class lacks `sendAlert` or `enrichIndicator`, the name is taken, the
   *   client is already running, or the constructor throws.
   */
  registerIntegration<K extends keyof IntegrationRegistry>(
    name: K,
    integration: IntegrationClass<never, IntegrationRegistry[K] & Integration>,
    options?: unknown,
  ): IntegrationRegistry[K];
  registerIntegration<I extends Integration>(
    name: string,
    integration: IntegrationClass<never, I>,
    options?: unknown,
  ): I;
  registerIntegration(name: string, integration: IntegrationClass<never>, options?: unknown): Integration {
    if (this.#state !== 'idle') {
      throw new IntegrationError(
        String(name),
        'register',
        `Integration "${String(name)}" cannot be registered while the client is ${this.#state}; register before start()`,
      );
    }
    const resolvedOptions = options ?? (this.#config.integrations as Record<string, unknown>)[name] ?? {};
    const instance = this.#integrations.register(name, integration, resolvedOptions);
    this.#audit({ action: 'config_changed', at: this.#now(), option: 'integrations', detail: { registered: name } });
    return instance;
  }

  /** The integration registered (or built from `integrations` by `start()`) under `name`, typed by the registry. */
  integration<K extends keyof IntegrationRegistry>(name: K): IntegrationRegistry[K] | undefined;
  integration(name: string): Integration | undefined;
  integration(name: string): Integration | undefined {
    return this.#integrations.get(name);
  }

  /** Names of the integrations held, in start order (those built from configuration only while started). */
  get integrationNames(): string[] {
    return this.#integrations.names;
  }

  /**
   * Loads lists, opens the cache, builds every integration configured under `integrations` and starts them all.
   *
   * Each configured key threatlib knows is built by its package's factory, imported on the spot: `siem` by
   * `@threatlib/siem`, `webhooks` by `@threatlib/webhooks`, `storage` by `@threatlib/storage`, `messageQueue` by
   * `@threatlib/queue`, `cloud` and `cloudSiem` by `@threatlib/cloud` (see `INTEGRATION_PACKAGES`). A key under which
   * an integration is registered is served by that one. Nothing configured is skipped: a missing package, an unknown
   * key nothing is registered under, or options the package refuses make `start()` reject before anything starts.
   *
   * Integrations start in order (registered ones first, in registration order, then the built ones). If one fails,
   * those already started are stopped in reverse order and the promise rejects with an {@link IntegrationError}
   * naming the one that failed.
   *
   * Once they run, the alert deliveries the alert store holds as `pending` (cut short by the last `stop()`, or left in
   * flight by a process that ended) are delivered again in the background (`client.alerts.settled()` waits for them).
   *
   * @throws {IntegrationError} `code: 'INTEGRATION_PACKAGE_MISSING'` with `packages` to install; otherwise naming
   *   the integration that could not be built or started, and why.
   * @throws {ConfigurationError} when a package refuses its options: `Configuration invalid: integrations.<key>...`.
   */
  async start(): Promise<void> {
    if (this.#state === 'running') return;
    if (this.#state !== 'idle') throw new Error(`ThreatClient cannot start while ${this.#state}`);
    this.#state = 'starting';
    let started!: () => void;
    this.#starting = new Promise((resolve) => {
      started = resolve;
    });
    try {
      await this.#start();
    } finally {
      this.#starting = undefined;
      started();
    }
  }

  async #start(): Promise<void> {
    try {
      // Load lists and open the cache now, so a bad list file or an unreachable cache fails start(), not a scout.
      await this.#prepare();
      // Redis unreachable does not fail start: the client runs degraded (clusterDegraded) and keeps trying.
      await this.#cluster?.start();
      await this.#cache?.start?.();
    } catch (error) {
      this.#state = 'idle';
      throw error;
    }
    let started: string[];
    try {
      started = await this.#integrations.start();
    } catch (error) {
      await this.#closeResources();
      this.#state = 'idle';
      throw error;
    }
    // A storage integration's alert store keeps the alerts while it runs, those kept so far included.
    const keeper = this.#integrations.started().find((entry) => entry.instance.alertStore !== undefined);
    if (keeper?.instance.alertStore) {
      try {
        await this.#alerting.useStore(keeper.instance.alertStore, { copy: true });
      } catch (error) {
        await this.#integrations.stop();
        await this.#closeResources();
        this.#state = 'idle';
        throw new IntegrationError(
          keeper.name,
          'start',
          `Integration "${keeper.name}" started but the alerts could not be moved to its alert store: ${(error as Error)?.message ?? String(error)}`,
          { cause: error },
        );
      }
    }
    // TAXII lists load their state (from an integration that keeps list state, else their file) and poll once, then
    // every interval. A poll that fails is logged and kept in listStatus(): it never fails start().
    const stateKeeper = this.#integrations
      .started()
      .find((entry) => typeof entry.instance.listStateStore === 'function');
    for (const list of await this.#taxiiLists()) {
      await list.ready(stateKeeper?.instance.listStateStore?.(`list:${list.name}`));
      list.start();
    }
    this.#state = 'running';
    // Deliveries a stopped (or crashed) run left pending go out again, in the background, now their integrations run.
    this.#alerting.resumePending();
    this.logger.info({ integrations: started }, 'threatlib client started');
  }

  /**
   * Stops every started integration (in reverse order), closes the client's sockets and timers, and locks the vault
   * (erasing its keys from memory; `vault.unlock` before the next lookup that needs one). Every integration is asked
   * to stop even if one fails; the failures are then reported together.
   */
  async stop(): Promise<void> {
    if (this.#state === 'stopping') return;
    this.#state = 'stopping';
    // Deliveries under way get a grace period while their integrations are still up; any cut short stays recorded.
    await this.#alerting.stop();
    await this.#alerting.useStore(this.#alertStore);
    // TAXII lists save their state before the integrations stop: one may be where that state is kept.
    await Promise.all((await this.#taxiiLists()).map((list) => list.close()));
    const failures = await this.#integrations.stop();
    await this.#closeResources();
    this.#vault?.lock('stop');
    // Last: the lines above reach the transports before their sockets, timers and files close.
    await closeLogger(this.#ownLogger);
    this.#state = 'idle';
    if (failures.length > 0) {
      const names = failures.map((f) => f.name);
      throw new IntegrationError(
        names.join(', '),
        'stop',
        `Integration${names.length > 1 ? 's' : ''} ${names.map((n) => `"${n}"`).join(', ')} failed to stop cleanly: ${failures
          .map((f) => (f.error as Error)?.message ?? String(f.error))
          .join('; ')}`,
        { cause: failures.length === 1 ? failures[0]?.error : new AggregateError(failures.map((f) => f.error)) },
      );
    }
  }

  /**
   * Where each list stands (loading the configured lists first, as a lookup would): a list file's entries and the
   * lines it skipped; a MISP feed's events, entries, last read, last failure, and the events and attributes it
   * skipped, counted by reason; a TAXII list's last poll, position, indicators held and objects skipped by reason;
   * then the lists added with {@link addList}.
   *
   * @throws {ListLoadError} when a list cannot be loaded.
   */
  async listStatus(): Promise<ListStatus[]> {
    return [...listStatus((await this.#prepare()).lists), ...this.#added.status()];
  }

  /**
   * Adds a list that every later lookup asks, after the configured ones: a `StixIndicatorList` fed at run time (the
   * server's writable TAXII collection keeps one), a `LocalList`, or any {@link ListSource}. Its results carry
   * `list:<name>`, and `weight` (0..1, default 0.7, as a configured list's) is its reliability in correlation.
   *
   * @throws {ValidationError} when the name is not a list name or is taken (by a configured list or an added one),
   *   when the list has no `lookup`, or when `weight` is not 0..1.
   *
   * @example
   * ```ts
   * const inbox = new StixIndicatorList({ name: 'partner' });
   * client.addList(inbox);
   * inbox.upsert(bundle.objects); // lookups see the indicators at once
   * ```
   */
  addList(list: ListSource, options: { weight?: number } = {}): this {
    this.#added.add(list, options);
    return this;
  }

  /** Stops asking a list added with {@link addList}; true when there was one of that name. */
  removeList(name: string): boolean {
    return this.#added.remove(name);
  }

  /** Each registered integration's health (an integration without `health()` reports healthy when started). */
  async integrationHealth(): Promise<IntegrationHealthReport[]> {
    const reports: IntegrationHealthReport[] = [];
    for (const entry of this.#integrations.entries()) {
      try {
        reports.push({ ...(await this.#integrations.healthOf(entry)), name: entry.name });
      } catch (error) {
        reports.push({ name: entry.name, healthy: false, detail: (error as Error)?.message ?? String(error) });
      }
    }
    return reports;
  }

  /**
   * One report of everything the client depends on: each feed (configured, breaker state, last error, whether its
   * key was refused), the cache (a real write/read/delete of a probe entry against the configured back end), the
   * vault (configured, locked) and each integration's own `health()`. The cache round trip and each integration get
   * `timeoutMs` (default 5 s), run concurrently, and a hang fails that check rather than the call.
   *
   * `status` is `unhealthy` when a part the client was given cannot work until a person acts: the vault is locked, or
   * an integration is unhealthy (or did not answer in time). It is `degraded` when the client answers but some answers
   * are missing or costlier: a feed's breaker open or half open, a feed whose key was refused, a failed cache round
   * trip (a feed without a key is `not_configured`, not a failure). Otherwise `healthy`; `reasons` says why in one line each. Feeds alone never make a client
   * unhealthy: it still answers, with each failure in its results. The checks run whatever
   * `enterprise.monitoring.healthChecks` says: that option only tells automated probes (the server's `GET /health`)
   * whether to run them.
   *
   * @example
   * ```ts
   * const report = await client.health();
   * if (report.status !== 'healthy') console.warn(report.status, report.reasons.join('; '));
   * ```
   */
  async health(options: { timeoutMs?: number } = {}): Promise<HealthReport> {
    return checkHealth({
      clock: this.#clock,
      timeoutMs: options.timeoutMs ?? 5_000,
      feeds: this.feedStatus(),
      cache: this.#cache,
      vault: this.#vault,
      integrations: this.#integrations.entries().map((entry) => ({
        name: entry.name,
        check: () => this.#integrations.healthOf(entry),
      })),
    });
  }

  /**
   * Counters of the monitoring alerts (`enterprise.monitoring.alerts`): raised, suppressed by the cooldown, and per
   * channel sent and failed. All zero without alert channels.
   */
  monitoringAlertStats(): MonitoringAlertStats {
    return this.#alerter?.stats() ?? { raised: 0, suppressed: 0, channels: {} };
  }

  #hasConfiguredKey(feed: string): boolean {
    const entry = this.#config.apiKeys[feed];
    return typeof entry === 'string' || entry?.key !== undefined;
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString();
  }

  /** Emits and logs an audit event when `security.enableAuditLog` is on. */
  #audit(event: AuditEvent): void {
    if (!this.#config.security.enableAuditLog) return;
    this.events.emit('audit', event);
    this.logger.info({ category: 'audit', audit: event }, `audit: ${event.action}`);
  }

  #activeFeeds(): Feed[] {
    const ids = [...this.#config.sources, ...this.#registeredSources];
    return ids.map((id) => this.#feeds.get(id)).filter((feed): feed is Feed => feed !== undefined);
  }

  #prepare(): Promise<{ prefilter: Prefilter; lists: LocalSource[] }> {
    if (!this.#prepared) {
      const loading = prepareLists(this.#config, withCategory(this.logger, 'lists'), {
        http: () => this.http,
        clock: this.#clock,
      }).then(async (prepared) => {
        // A client used without start() loads its TAXII lists' state from their files and polls them once, now;
        // start() does it itself once the integrations that may keep that state run.
        if (this.#state !== 'starting') {
          await Promise.all(
            prepared.lists.filter((list) => list instanceof TaxiiListSource).map((list) => list.ready()),
          );
        }
        return prepared;
      });
      this.#prepared = loading;
      // A failed load is retried on the next call instead of being remembered forever.
      loading.catch(() => {
        if (this.#prepared === loading) this.#prepared = undefined;
      });
      return loading;
    }
    return this.#prepared;
  }

  /** The configured lists (loaded once) and the added ones, as lookups ask them. */
  #listsForScout(): Promise<{ prefilter: Prefilter; lists: LocalSource[] }> {
    const from = this.#prepare();
    const version = this.#added.version;
    if (this.#forScout?.from !== from || this.#forScout.version !== version) {
      this.#forScout = {
        from,
        version,
        lists: from.then(({ prefilter, lists }) => ({ prefilter, lists: [...lists, ...this.#added.lists] })),
      };
    }
    return this.#forScout.lists;
  }

  /** The TAXII lists among the configured ones, once loaded (none when loading failed). */
  async #taxiiLists(): Promise<TaxiiListSource[]> {
    const prepared = await this.#prepared?.catch(() => undefined);
    return (prepared?.lists ?? []).filter((list): list is TaxiiListSource => list instanceof TaxiiListSource);
  }

  #announce(correlation: Correlation, results: ScoutResult['results'], handle: object = correlation): void {
    this.events.emit('correlated', correlation);
    if (!correlation.isThreat) return;
    this.events.emit('threatFound', {
      indicator: correlation.indicator,
      severity: correlation.riskScore,
      type: correlation.type,
      verdict: correlation.verdict,
      confidence: correlation.confidence,
      consensus: correlation.consensus,
      sources: correlation.contributions
        .filter((c) => c.verdict === 'malicious' || c.verdict === 'suspicious')
        .map((c) => c.feed),
    });
    // In the background: the scan does not wait for the alert to be stored or delivered.
    this.#alerting.conclude(correlation, handle);
    this.#campaigns?.track(correlation, results);
  }

  /** What `JSON.stringify` writes of a client: its state, sources, integrations and redacted configuration. */
  toJSON(): { state: ClientState; sources: string[]; integrations: string[]; config: ResolvedConfig } {
    return { state: this.#state, sources: this.sources, integrations: this.integrationNames, config: this.config };
  }

  /** What `util.inspect` and `console.log` show of a client: {@link toJSON}'s view, never a secret. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('ThreatClient', this.toJSON(), depth, options, inspect);
  }

  static {
    readConfig = (client) => {
      if (!(#config in client)) throw new TypeError('expected a ThreatClient of this copy of @threatlib/core');
      return client.#config;
    };
  }

  async #closeResources(): Promise<void> {
    this.#scheduler.close();
    // Lists that poll (MISP feeds) stop; the next use loads the lists again.
    const prepared = this.#prepared;
    this.#prepared = undefined;
    const lists = await prepared?.then(
      (loaded) => loaded.lists,
      () => [],
    );
    await Promise.all((lists ?? []).map((list) => list.close?.()));
    const http = this.#http;
    this.#http = undefined;
    await http?.close();
    await this.#cache?.close();
    await this.#cluster?.close();
    // Alert deliveries under way get a moment to finish; SMTP and webhook connections are closed either way.
    await this.#alerter?.close();
  }

  #contextFor(name: string): IntegrationContext {
    return integrationContext(name, { client: this, config: this.#config, events: this.events, oauth2: this.#oauth2 });
  }
}

/**
 * The configuration `client` runs with, its secrets included, for a package that acts on them (the REST server
 * checks requests with `security.authentication`). `client.config` is the same with its secrets redacted. Never log
 * what this returns.
 */
export function configWithSecrets(client: ThreatClient): ResolvedConfig {
  return readConfig(client);
}
