import { type LoadConfigOptions, loadConfig } from '../config/load-config.js';
import { redactedConfig } from '../config/redacted-config.js';
import type { ApiKeyConfig, ResolvedConfig, ThreatConfig } from '../config/schema.js';
import type { ConfigWarning } from '../config/validate-config.js';
import type { AuditEvent } from '../events/audit-event.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEventName, ThreatEvents } from '../events/threat-events.js';
import type { Feed } from '../feeds/feed.js';
import type { HttpClient } from '../http/http-client.js';
import type { Integration, IntegrationClass, IntegrationRegistry } from '../integration/integration.js';
import type { Logger } from '../logging/logger.js';
import type { HealthReport } from '../monitoring/health-report.js';
import type { MonitoringAlertStats } from '../monitoring/monitoring-alert.js';
import type { OAuth2TokenSource } from '../oauth2/client-credentials.js';
import type { FeedQuotaReport } from '../scheduler/quota-report.js';
import type { FeedStatusReport } from '../scout/feed-pipeline.js';
import type { ScoutOptions, ScoutResult } from '../scout/scout-engine.js';
import { type ScoutManyItem, type ScoutManyOptions, streamScouts } from '../scout/scout-many.js';
import { INSPECT_CUSTOM, type InspectFunction, type InspectOptions, inspectView } from '../security/redacted-view.js';
import type { Vault } from '../vault/vault.js';
import type { VaultOptions } from '../vault/vault-options.js';
import type { ListSource } from './added-lists.js';
import type { ClientAlerts } from './alerting.js';
import { registerFeed, registerIntegration, updateConcurrency } from './client-changes.js';
import type { ClientState, IntegrationHealthReport, ThreatClientOptions, VaultClient } from './client-options.js';
import { feedStatusOf, healthOf, integrationHealthOf, quotasOf } from './client-reports.js';
import { type ClientParts, wireClient } from './client-wiring.js';
import type { CorrelationResult } from './correlation-result.js';
import type { ListStatus } from './list-status.js';
import { createVaultClient, openVaultClient } from './vault-factories.js';

export type {
  ClientState,
  IntegrationHealthReport,
  ThreatClientOptions,
  VaultClient,
} from './client-options.js';
export type { CorrelationResult } from './correlation-result.js';

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
  /** The client's parts (its feeds, scheduler, cache, lists, integrations, lifecycle...), see `wireClient`. */
  readonly #parts: ClientParts;
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

  /**
   * @throws {ConfigurationError} `Configuration invalid: <path>: <reason>; ...` when the configuration (or a
   *   threatlib environment variable) is invalid.
   */
  constructor(config: ThreatConfig, options: ThreatClientOptions = {}) {
    const parts = wireClient(this, config, options);
    this.#parts = parts;
    this.#config = parts.config;
    this.warnings = parts.warnings;
    this.logger = parts.logger;
    this.events = parts.events;
    this.alerts = parts.alerting.alerts;
  }

  /**
   * Makes an encrypted vault holding `apiKeys` and a client whose feeds take their keys from it. Keys are
   * encrypted with AES-256-GCM under a key derived from `password` (argon2id by default, or PBKDF2); the vault
   * starts unlocked, locks itself after `lockTimeout` ms without use (when `autoLock`), and rotates when
   * `rotationEnabled`. Save it with `vault.save(path)` (or give `vaultOptions.path`), reopen it with `openVault`. In a
   * page whose `config` has `storage`, it is kept there under `vaultOptions.path` (default `vault`) after each change.
   *
   * `apiKeys` maps feed ids to keys; an object entry (`{key, endpoint, timeout, ...}`) puts its key in the vault and
   * its other settings in the client's `apiKeys`. `sources` defaults to the built-in feeds among them.
   *
   * @throws {ConfigurationError} for an invalid configuration or vault option.
   * @throws {ValidationError} for an empty password or key, or a malformed feed id; in a page with `storage`, when
   *   a vault is kept under that name already.
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
    return createVaultClient(password, apiKeys, vaultOptions, ThreatClient.#adopt);
  }

  /**
   * Opens the vault file at `path` with `password` and makes a client whose feeds take their keys from it (in a page
   * whose `config` has `storage`, the vault kept there under the name `path`). The vault opens with the cipher and
   * KDF parameters recorded in it. `vaultOptions` are those of {@link ThreatClient.createVault}; `sources` defaults
   * to the built-in feeds whose keys the vault holds.
   *
   * @throws {VaultAuthError} when the password is wrong.
   * @throws {VaultCorruptError} when the file is damaged or was tampered with. In both cases the file is untouched.
   */
  static async openVault(path: string, password: string, vaultOptions: VaultOptions = {}): Promise<VaultClient> {
    return openVaultClient(path, password, vaultOptions, ThreatClient.#adopt);
  }

  /** The client of a vault `withVault` made: it owns the logger made for the vault, and records the vault's audit. */
  static #adopt(
    config: ThreatConfig,
    options: ThreatClientOptions,
    made: { ownLogger: Logger | undefined; audit: () => AuditEvent },
  ): ThreatClient {
    const client = new ThreatClient(config, options);
    if (made.ownLogger) client.#parts.lifecycle.ownLogger = made.ownLogger;
    client.#parts.audit(made.audit());
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
    return this.#parts.vault;
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
    return this.#parts.lifecycle.state;
  }

  /** How many feed requests may run at once (see {@link updateConcurrency}). */
  get concurrency(): number {
    return this.#parts.scheduler.concurrency;
  }

  /**
   * Per feed: circuit breaker state and failures, what is left of each quota window, a pause the feed asked for,
   * queued and running requests, request counters (sent, retries, cache hits, deduplicated, results by status), the
   * last error, and latency p50/p95. The REST `/feeds/status` returns this.
   */
  feedStatus(): FeedStatusReport[] {
    return feedStatusOf(this.#parts);
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
    return quotasOf(this.#parts);
  }

  /** Ids of the feeds a scout asks, in order: `sources`, then feeds added with {@link registerFeed}. */
  get sources(): string[] {
    return this.#parts.feeds.active().map((feed) => feed.id);
  }

  /**
   * Adds a third-party feed through the same contract as the built-in ones; it is asked by every later scout.
   *
   * @throws {ConfigurationError} naming what is wrong when `feed` does not implement {@link Feed}, or its id is
   *   taken.
   */
  registerFeed(feed: Feed): void {
    registerFeed(this.#parts, feed);
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
    const { scout, correlation } = await this.#parts.engine.run(indicator, options);
    this.#parts.announce(correlation, scout.results);
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
    const { scout, correlation } = await this.#parts.engine.run(indicator, options);
    const { results, startedAt, durationMs, fallback } = scout;
    const result: CorrelationResult = {
      ...correlation,
      results,
      startedAt,
      durationMs,
      ...(fallback ? { fallback } : {}),
    };
    // The caller holds the result: `alerts.deliveryOf(result, name)` finds the alert it raised by it.
    this.#parts.announce(correlation, results, result);
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
    return this.#parts.oauth2;
  }

  /** The client's pooled HTTP client, opened on first use and closed by `stop()`. */
  get http(): HttpClient {
    return this.#parts.http.client;
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
    updateConcurrency(this.#parts, n);
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
    return registerIntegration(this.#parts, name, integration, options);
  }

  /** The integration registered (or built from `integrations` by `start()`) under `name`, typed by the registry. */
  integration<K extends keyof IntegrationRegistry>(name: K): IntegrationRegistry[K] | undefined;
  integration(name: string): Integration | undefined;
  integration(name: string): Integration | undefined {
    return this.#parts.integrations.get(name);
  }

  /** Names of the integrations held, in start order (those built from configuration only while started). */
  get integrationNames(): string[] {
    return this.#parts.integrations.names;
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
    return this.#parts.lifecycle.start();
  }

  /**
   * Stops every started integration (in reverse order), closes the client's sockets and timers, and locks the vault
   * (erasing its keys from memory; `vault.unlock` before the next lookup that needs one). Every integration is asked
   * to stop even if one fails; the failures are then reported together.
   */
  async stop(): Promise<void> {
    return this.#parts.lifecycle.stop();
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
    return this.#parts.lists.status();
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
    this.#parts.added.add(list, options);
    return this;
  }

  /** Stops asking a list added with {@link addList}; true when there was one of that name. */
  removeList(name: string): boolean {
    return this.#parts.added.remove(name);
  }

  /** Each registered integration's health (an integration without `health()` reports healthy when started). */
  async integrationHealth(): Promise<IntegrationHealthReport[]> {
    return integrationHealthOf(this.#parts);
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
    return healthOf(this.#parts, options.timeoutMs ?? 5_000);
  }

  /**
   * Counters of the monitoring alerts (`enterprise.monitoring.alerts`): raised, suppressed by the cooldown, and per
   * channel sent and failed. All zero without alert channels.
   */
  monitoringAlertStats(): MonitoringAlertStats {
    return this.#parts.alerter?.stats() ?? { raised: 0, suppressed: 0, channels: {} };
  }

  /** What `JSON.stringify` writes of a client: its state, sources, integrations and redacted configuration. */
  toJSON(): { state: ClientState; sources: string[]; integrations: string[]; config: ResolvedConfig } {
    return {
      state: this.#parts.lifecycle.state,
      sources: this.sources,
      integrations: this.integrationNames,
      config: this.config,
    };
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
}

/**
 * The configuration `client` runs with, its secrets included, for a package that acts on them (the REST server
 * checks requests with `security.authentication`). `client.config` is the same with its secrets redacted. Never log
 * what this returns.
 */
export function configWithSecrets(client: ThreatClient): ResolvedConfig {
  return readConfig(client);
}
