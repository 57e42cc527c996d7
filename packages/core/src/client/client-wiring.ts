import type { AlertStore } from '../alerts/alert-store.js';
import { MemoryAlertStore } from '../alerts/memory-alert-store.js';
import { checkSecureContext } from '../browser/secure-context.js';
import { browserStores } from '../browser-storage/client-stores.js';
import type { CacheStore } from '../cache/cache-store.js';
import { createCache } from '../cache/create-cache.js';
import { Cluster } from '../cluster/cluster.js';
import { ENVIRONMENT_OPTIONS } from '../config/environment.js';
import { parseConfig } from '../config/parse-config.js';
import type { ResolvedConfig } from '../config/schema.js';
import { type ConfigWarning, validateConfig } from '../config/validate-config.js';
import type { Correlation } from '../correlation/correlate.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { AuditEvent } from '../events/audit-event.js';
import { EventBus } from '../events/event-bus.js';
import type { ThreatEventHandler, ThreatEventName, ThreatEvents } from '../events/threat-events.js';
import { BUILTIN_FEED_LIST } from '../feeds/builtin-feeds.js';
import type { Feed } from '../feeds/feed.js';
import { FeedRegistry } from '../feeds/feed-registry.js';
import { importIntegrationPackage } from '../integration/load-integration-package.js';
import { withCategory } from '../logging/categories.js';
import { createLogger } from '../logging/create-logger.js';
import type { Logger } from '../logging/logger.js';
import { createMonitoringAlerter } from '../monitoring/create-monitoring-alerter.js';
import type { MonitoringAlerter } from '../monitoring/monitoring-alerter.js';
import type { OAuth2TokenSource } from '../oauth2/client-credentials.js';
import { clientTokenSource } from '../oauth2/client-token-source.js';
import { shownInput } from '../records/shown-input.js';
import type { Clock } from '../scheduler/clock.js';
import { FeedScheduler } from '../scheduler/feed-scheduler.js';
import { quotaFor } from '../scheduler/quota-for.js';
import { QuotaLowWatch } from '../scheduler/quota-low.js';
import { corsProxyOf } from '../scout/cors-proxy.js';
import { FeedPipeline } from '../scout/feed-pipeline.js';
import { LookupFallback } from '../scout/lookup-fallback.js';
import { ScoutEngine, type ScoutResult } from '../scout/scout-engine.js';
import { checkEndpoint } from '../security/endpoint-policy.js';
import type { Vault } from '../vault/vault.js';
import { AddedLists } from './added-lists.js';
import { ClientAlerting } from './alerting.js';
import { CampaignTracking } from './campaign-tracking.js';
import { ClientHttp } from './client-http.js';
import { ClientLifecycle } from './client-lifecycle.js';
import { ClientLists } from './client-lists.js';
import type { ThreatClientOptions } from './client-options.js';
import { integrationContext } from './integration-context.js';
import { ClientIntegrations } from './integrations.js';
import { clockOf, layeredConfig } from './layered-config.js';
import type { ThreatClient } from './threat-client.js';
import { forwardVaultEvents, type KeyAccess, keyAccess } from './vault-access.js';

/** The feeds a client knows: the built-in ones and those registered at run time. */
interface ClientFeeds {
  readonly registry: FeedRegistry;
  /** Ids of the feeds registered with `client.registerFeed`, asked after `sources`. */
  readonly registered: string[];
  /** The feeds a lookup asks, in order: `sources`, then the registered ones. */
  active(): Feed[];
}

/** Everything a client is made of, wired together by {@link wireClient}. */
export interface ClientParts {
  /** The configuration, with its secrets. */
  config: ResolvedConfig;
  warnings: readonly ConfigWarning[];
  logger: Logger;
  events: EventBus<ThreatEvents>;
  clock: Clock;
  vault: Vault | undefined;
  keys: KeyAccess;
  alerting: ClientAlerting;
  integrations: ClientIntegrations;
  feeds: ClientFeeds;
  scheduler: FeedScheduler;
  pipeline: FeedPipeline;
  engine: ScoutEngine;
  cache: CacheStore | undefined;
  lists: ClientLists;
  added: AddedLists;
  alerter: MonitoringAlerter | undefined;
  oauth2: OAuth2TokenSource | undefined;
  http: ClientHttp;
  lifecycle: ClientLifecycle;
  /** Emits and logs an audit event when `security.enableAuditLog` is on. */
  audit: (event: AuditEvent) => void;
  /** Tells the world what a lookup concluded: `correlated`, then `threatFound`, its alert and its campaigns. */
  announce: (correlation: Correlation, results: ScoutResult['results'], handle?: object) => void;
}

/**
 * Builds the parts of `client` from the configuration given to its constructor and its options, each given what
 * it needs of the others: the composition root of the client.
 *
 * @throws {ConfigurationError} `Configuration invalid: <path>: <reason>; ...` when the configuration (or a
 *   threatlib environment variable) is invalid, or an endpoint it names is refused by the endpoint policy.
 */
export function wireClient(client: ThreatClient, given: unknown, options: ThreatClientOptions): ClientParts {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ConfigurationError([
      {
        path: '(root)',
        message: `expected a configuration object, got ${given === undefined ? 'undefined' : shownInput(given)}`,
      },
    ]);
  }
  const { config: input, ignored } = layeredConfig(given, options);
  const config = parseConfig(input);
  // Before anything is made: the vault and encrypted storage need WebCrypto, which a page has in a secure context only.
  checkSecureContext(config.browser.secureContext);
  const proxy = corsProxyOf(config.browser);
  // Log lines can carry indicators and feed answers: the webhook transport obeys enforceHttps like a feed does.
  if (!options.logger) {
    for (const [i, transport] of config.logging.transports.entries()) {
      if (transport.type === 'webhook') checkEndpoint(transport.url, `logging.transports[${i}].url`, config.security);
    }
  }
  const logger = options.logger ?? createLogger(config.logging);
  const vault = options.vault;
  // A key the vault holds is not missing, whatever apiKeys says.
  const warnings = [
    ...ignored.map(
      (issue): ConfigWarning => ({
        code: 'ENV_VARIABLE_IGNORED',
        path: issue.path,
        message: `${issue.path}: ${issue.message}; not used, since the configuration given to the constructor sets ${ENVIRONMENT_OPTIONS[issue.path] ?? 'its option'}`,
      }),
    ),
    ...validateConfig(input, { hasKey: (feed) => vault?.has(feed) === true || proxy?.addsKeys === true }),
  ];
  for (const warning of warnings) {
    logger.warn({ category: 'config', code: warning.code, path: warning.path }, warning.message);
  }
  const events = new EventBus<ThreatEvents>(withCategory(logger, 'events'));
  for (const [event, handler] of Object.entries(config.events)) {
    if (handler) events.on(event as ThreatEventName, handler as ThreatEventHandler<ThreatEventName>);
  }
  const clock = clockOf(options);
  // In a page, `storage` keeps the verdicts and alerts (IndexedDB, localStorage): they survive a reload.
  const stored = browserStores(config, { now: () => clock.now(), logger: withCategory(logger, 'client') });
  const alertStore: AlertStore =
    options.alertStore ?? stored?.alertStore ?? new MemoryAlertStore({ logger: withCategory(logger, 'client') });
  const integrations = new ClientIntegrations({
    logger,
    configured: () => config.integrations,
    contextFor: (name) => integrationContext(name, { client, config, events, oauth2 }),
    load: options.loadIntegrationPackage ?? importIntegrationPackage,
  });
  const cluster = config.cluster.enabled
    ? new Cluster({ config, clock, logger: withCategory(logger, 'client'), events })
    : undefined;
  const campaigns = CampaignTracking.of({ config, clock, events, cluster });
  const alerting = new ClientAlerting({
    store: alertStore,
    config,
    clock,
    logger,
    targets: () => integrations.started(),
    ready: () => lifecycle.started(),
    sharedDedupe: cluster?.alertDedupe,
  });
  const quotaLow = new QuotaLowWatch(config.performance.rateLimit.quotaLowThreshold, (event) =>
    events.emit('quotaLow', event),
  );
  const checkQuota = (feed: string) =>
    quotaLow.check(feed, scheduler.status(feed).quota, scheduler.gate(feed)?.shared ?? false);
  const scheduler: FeedScheduler = new FeedScheduler({
    concurrency: config.performance.maxConcurrency,
    clock,
    quotaFor: (feed) => quotaFor(config, feed),
    // A cluster's figures are read from Redis in the background: checked again once they are, other clients'
    // requests included.
    ...(cluster
      ? { gateFor: (feed: string) => cluster.gateFor(feed, quotaFor(config, feed), () => checkQuota(feed)) }
      : {}),
    onSent: checkQuota,
  });
  const makeCache = () => (stored ? stored.cache : createCache(config.caching, { now: () => clock.now() }));
  const cache = options.cache ?? (cluster ? cluster.verdictCache(makeCache) : makeCache());
  cache?.onEvict?.(() => events.emit('cacheEvicted'));
  // Refuse an insecure feed endpoint now rather than at the first lookup.
  for (const [feed, entry] of Object.entries(config.apiKeys)) {
    if (typeof entry === 'object' && entry.endpoint)
      checkEndpoint(entry.endpoint, `apiKeys.${feed}.endpoint`, config.security);
  }
  for (const [i, list] of config.lists.entries()) {
    if (list.misp?.url !== undefined) checkEndpoint(list.misp.url, `lists[${i}].misp.url`, config.security);
    if (list.taxii !== undefined) checkEndpoint(list.taxii.url, `lists[${i}].taxii.url`, config.security);
  }
  const added = new AddedLists({ config, logger: withCategory(logger, 'lists') });
  const registry = new FeedRegistry(BUILTIN_FEED_LIST);
  const registered: string[] = [];
  const feeds: ClientFeeds = {
    registry,
    registered,
    active: () =>
      [...config.sources, ...registered]
        .map((id) => registry.get(id))
        .filter((feed): feed is Feed => feed !== undefined),
  };
  const alerter = createMonitoringAlerter(config, {
    clock,
    // Alerts are about feeds (a breaker, a refused key): their lines go with the feed lines.
    logger: withCategory(logger, 'feed'),
    feedName: (feed) => registry.get(feed)?.name,
  });
  const http = new ClientHttp(config.security, logger);
  // Made now so that an insecure token endpoint is refused here; no request is sent before getToken().
  const oauth2 = clientTokenSource({
    config,
    vault,
    get http() {
      return http.client;
    },
    clock,
  });
  const pipeline = new FeedPipeline({
    config,
    get http() {
      return http.client;
    },
    logger: withCategory(logger, 'feed'),
    events,
    scheduler,
    cache,
    clock,
    ...(alerter ? { monitor: alerter } : {}),
    ...(cluster ? { flights: cluster.flights, breakerFor: cluster.breakerFor.bind(cluster) } : {}),
    proxy,
  });
  const lists = new ClientLists({
    config,
    logger: withCategory(logger, 'lists'),
    http: () => http.client,
    clock,
    added,
    starting: () => lifecycle.state === 'starting',
  });
  const keys = keyAccess(config, vault, proxy?.addsKeys === true);
  const engine = new ScoutEngine({
    config,
    pipeline,
    sources: () => feeds.active(),
    prepared: () => lists.forScout(),
    listWeight: (feed) => added.weightOf(feed),
    keyFor: keys.keyFor,
    checkKeys: keys.checkKeys,
    now: () => clock.now(),
    clock,
    fallback:
      config.browser.fallbackMode === 'error'
        ? undefined
        : new LookupFallback({ browser: config.browser, cache, clock, logger: withCategory(logger, 'feed') }),
    keysAddedByProxy: proxy?.addsKeys === true,
  });
  const audit = (event: AuditEvent): void => {
    if (!config.security.enableAuditLog) return;
    events.emit('audit', event);
    logger.info({ category: 'audit', audit: event }, `audit: ${event.action}`);
  };
  if (vault) forwardVaultEvents(vault, { events, logger, audit });
  const lifecycle: ClientLifecycle = new ClientLifecycle(
    { logger, integrations, alerting, alertStore, lists, cluster, cache, scheduler, http, alerter, vault },
    options.logger ? undefined : logger,
  );
  const announce = (correlation: Correlation, results: ScoutResult['results'], handle: object = correlation) => {
    events.emit('correlated', correlation);
    if (!correlation.isThreat) return;
    events.emit('threatFound', {
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
    alerting.conclude(correlation, handle);
    campaigns?.track(correlation, results);
  };
  return {
    config,
    warnings,
    logger,
    events,
    clock,
    vault,
    keys,
    alerting,
    integrations,
    feeds,
    scheduler,
    pipeline,
    engine,
    cache,
    lists,
    added,
    alerter,
    oauth2,
    http,
    lifecycle,
    audit,
    announce,
  };
}
