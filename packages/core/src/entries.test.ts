// Every entry of `@threatlib/core`, pinned name by name: adding a name to an entry, removing one or moving it is a
// change to this file, reviewed with the changeset that says where it went (issue 23). Values are checked as a user
// loads them (`Object.keys` of the module); types, which leave nothing at run time, by TypeScript's reading of the
// entry's source, the way its `.d.ts` declares them. CONTRIBUTING.md says which entry a new name belongs on.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as MainTypes from './index.js';

/** A pinned list, written as words in any layout, sorted as `Array.prototype.sort` sorts. */
function words(text: TemplateStringsArray): string[] {
  return text.join('').trim().split(/\s+/).sort();
}

/** Entry (as the exports map spells it) -> its runtime names and its type-only names. */
const ENTRIES: Record<string, { values: string[]; types: string[] }> = {
  '.': {
    values: words`
    ALERT_METADATA_MAX_BYTES AlertDeliverySchema AlertInputSchema AlertSchema BUILTIN_FEED_IDS CacheError
    CampaignTracker CaseSchema ConfigurationError EnrichedIndicatorSchema FEED_STATUSES HttpError
    INDICATOR_TYPES INDICATOR_TYPE_NAMES IndicatorMessageSchema IndicatorRefSchema IndicatorSchema
    InsecureEndpointError IntegrationError InvalidIndicatorError ListLoadError MemoryAlertStore OAuth2TokenError
    ProcessedMessageSchema RateLimitError SEVERITIES SeveritySchema StreamEventSchema THREATLIB_STIX_IDENTITY
    THREATLIB_STIX_NAMESPACE THREAT_LEVELS ThreatClient ThreatConfigSchema ThreatlibError ValidationError Vault
    VaultAuthError VaultCorruptError VaultLockedError fromStixBundle isIndicatorType isIndicatorTypeName
    mergeConfig parseConfig parseIndicator parseRecord riskScoreForConfidence severityForRiskScore silentLogger
    stixIndicatorId streamEventFor threatLevelForRiskScore toStixBundle toStixPattern validateConfig
    `,
    types: words`
    ClusterConfig ClusterDegradedEvent ClusterRestoredEvent FeedQuotaReport QuotaLowEvent
    Alert AlertDelivery AlertDeliveryCounts AlertInput AlertPage AlertQuery AlertingConfig ApiKeyConfig
    Argon2idParams AuditAction AuditEvent BuiltinFeedId CacheHealth CampaignDetectedEvent CampaignLinkKind
    CampaignObservation CampaignTrackerOptions Case CaseInput CheckStatus ClientAlerts ClientState ConfigWarning
    ConfigurationIssue Contribution Correlation CorrelationResult DeliveryStatus EnrichedIndicator EnvelopeKdf
    Environment FeedErrorEvent FeedHealth FeedResult FeedStatus FeedStatusReport FeedVerdict
    FromStixBundleOptions HealthReport HealthStatus HttpFailureKind Indicator IndicatorInput IndicatorMessage
    IndicatorRecord IndicatorRef IndicatorType IndicatorTypeName IntegrationErrorCode IntegrationErrorOptions
    IntegrationHealthCheck IntegrationHealthReport IntegrationPackageLoader IntegrationPhase IntegrationRegistry
    KdfParams ListSource ListStatus LockReason Logger LoggingConfig MemoryAlertLimits MemoryAlertStoreOptions
    MemoryAlertStoreStats MonitoringAlert MonitoringAlertStats MonitoringCondition OAuth2TokenErrorDetails
    Pbkdf2Params PerformanceConfig Priority ProcessedMessage PwaConfig ResolvedConfig RotateKeysCallback RotatedKeys
    ScoutManyItem ScoutManyOptions ScoutOptions ScoutProgress ScoutResult SecurityConfig Severity StixBundle
    StixBundleIndicator StixBundleReading StixBundleSkip StixCorrelationInput StixExternalReference StixIdentity
    StixIndicator StixSourceAnswer Strategy StreamEvent StreamEventInput TaxiiListStatus TaxiiPollStatus
    ThreatClientOptions ThreatConfig ThreatEventHandler ThreatEventName ThreatEvents ThreatFoundEvent
    ThreatLevel ThreatlibErrorOptions Thresholds ToStixBundleOptions VaultClient VaultEnvelope VaultEvents
    VaultHealth VaultOptions VaultSettings WarninglistHit
    `,
  },
  './browser': {
    values: words`
    BrowserAlertStore BrowserCache BrowserStorageError InsecureContextError checkSecureContext
    `,
    types: words`
    BrowserAlertStoreOptions BrowserCacheOptions BrowserStorageOptions BrowserStorageType SecureContextScope
    `,
  },
  './cache': {
    values: words`
    FileCache KvServerCache MemoryCache createCache
    `,
    types: words`
    CacheEntry CacheStore FileCacheOptions KvServerCacheOptions MemoryCacheOptions
    `,
  },
  './cli': {
    values: words`
    CONFIG_FILE_NAMES apiKeyVariable loadConfig runConfigCommand streamScouts
    `,
    types: words`
    LoadConfigOptions
    `,
  },
  './feeds': {
    values: words`
    BUILTIN_FEEDS BUILTIN_FEED_LIST abuseipdbFeed answer crowdsecFeed failure failureFromResponse isBuiltinFeedId otxFeed
    parseBody
    urlhausFeed virustotalFeed
    `,
    types: words`
    AnswerFields Feed FeedLookupContext FeedLookupResult Parsed
    `,
  },
  './http-server': {
    values: words`
    HTTP_PROBLEM_TYPES ProblemError SERVER_TIMEOUT_DEFAULTS guardConnections problemClientErrorHandler
    securityHeaders serverTimeoutOptions
    `,
    types: words`
    ClientError ConnectionGuardOptions CspDirectives Problem RefusedConnections ServerTimeouts
    `,
  },
  './integration': {
    values: words`
    AlertFieldsSchema CERTIFICATE_FAILURE_WORDS CONTROL_OR_SEPARATOR CircuitBreaker EventBus FeedScheduler INSPECT_CUSTOM
    NETWORK_FAILURE_WORDS isCertificateFailure networkFailureCode
    INTEGRATION_PACKAGES PROTOTYPE_KEYS REDACTED checkEndpoint checkJsonStructure codePointName
    confidenceProblem confidenceSchema configWithSecrets createHttpClient createOAuth2TokenSource headerNameProblem
    headerValueProblem headersSchema suggestOption
    durationProblem durationSchema entraRefusal indicatorForOutput isAzureIdentityError readAzureErrorBody inspectView isNormalisedAlert isSecretField lineSafeJson
    loadOptionalPeers normaliseAlert parseSize querySeverityRank parseStixTimestamp prototypeKeyPath quoteForDisplay recordIssues
    redactSecrets redactText redactedView retryAfter retryDelay setOwn severityRank shownInput stixTimestamp
    systemClock untilAborted webhookOutboxEntry withCategory writeFileAtomic
    `,
    types: words`
    AbortSignalLike AlertStore BreakerOptions BreakerState BreakerStatus Clock DurationBounds HttpClient HttpClientOptions
    HttpRequest HttpResponse InspectFunction InspectOptions Integration IntegrationClass IntegrationClient
    IntegrationContext IntegrationFactory IntegrationHealth IntegrationPackage JsonStructureFault
    OAuth2TokenSource OAuth2TokenSourceOptions OptionalPeerRequest PackagedIntegrationKey RetryOptions
    ScheduleOptions SendAlertOptions TimerOptions WebhookOutbox WebhookOutboxEntry
    `,
  },
  './lists': {
    values: words`
    LocalList StixIndicatorList parseLocalList
    `,
    types: words`
    ListState ListStateStore LocalListMatchMode LocalListOptions LocalListVerdict StixIndicatorListOptions
    StixIndicatorListStatus StixIndicatorSnapshot StixObjectOutcome StixSkipReason StixSkippedObject
    `,
  },
  './logging': {
    values: words`
    FileTransport SyslogTransport WebhookTransport closeLogger createLogger flushLogger formatRfc5424
    logTransportStats octetCountingFrame
    `,
    types: words`
    CreateLoggerOptions FileTransportOptions LogCategory LogEntry LogFormat LogSink PinoLogger
    SyslogFacilityName SyslogMessage SyslogTransportOptions WebhookTransportOptions
    `,
  },
  './metrics': {
    values: words`
    createClientMetrics
    `,
    types: words`
    ClientMetricsOptions LabelledClient MetricsClient
    `,
  },
  './misp': {
    values: words`
    THREATLIB_MISP_NAMESPACE THREATLIB_MISP_ORG exportMispFeed loadMispFeedList toMispFeed
    `,
    types: words`
    ExportMispFeedOptions ExportMispFeedResult MispAlertInput MispCorrelationInput MispFeed MispFeedAttribute
    MispFeedEvent MispFeedInput MispFeedList MispFeedListOptions MispFeedRefresh MispFeedSkip MispFeedSkipCount
    MispFeedStatus MispFeedTag MispManifestEntry MispOrganisation ToMispFeedOptions
    `,
  },
  './testing': {
    values: words`
    ManualClock alertStoreCompliance describeWithServices expectNoSecretIn expectNoSecretShown portOpen
    probeService
    `,
    types: words`
    E2EService ProbedService
    `,
  },
};

/** Each entry loaded as a user loads it: the source file its exports map points at. */
const LOAD: Record<string, () => Promise<Record<string, unknown>>> = {
  '.': () => import('./index.js'),
  './browser': () => import('./browser/index.js'),
  './cache': () => import('./cache/index.js'),
  './cli': () => import('./cli/index.js'),
  './feeds': () => import('./feeds/index.js'),
  './http-server': () => import('./http-server/index.js'),
  './integration': () => import('./integration/index.js'),
  './lists': () => import('./lists/index.js'),
  './logging': () => import('./logging/index.js'),
  './metrics': () => import('./metrics/index.js'),
  './misp': () => import('./misp-feed/index.js'),
  './testing': () => import('./testing/index.js'),
};

const PACKAGE = new URL('../package.json', import.meta.url);
const exportsMap: Record<string, string | { types: string }> = JSON.parse(readFileSync(PACKAGE, 'utf8')).exports;
/** The source file behind each entry of the exports map (`./dist/cache/index.d.ts` is `src/cache/index.ts`). */
const SOURCES = Object.fromEntries(
  Object.entries(exportsMap).flatMap(([entry, target]) =>
    typeof target === 'object'
      ? [[entry, fileURLToPath(new URL(target.types.replace('./dist/', './src/').replace(/\.d\.ts$/, '.ts'), PACKAGE))]]
      : [],
  ),
);

/** Each entry's names as TypeScript reads them from its source: value (there at run time) or type only. */
function declaredNames(): Record<string, { values: string[]; types: string[] }> {
  const program = ts.createProgram(Object.values(SOURCES), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const found: Record<string, { values: string[]; types: string[] }> = {};
  for (const [entry, file] of Object.entries(SOURCES)) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`TypeScript cannot read ${file}`);
    const names = { values: [] as string[], types: [] as string[] };
    for (const exported of checker.getExportsOfModule(module)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const typeOnly = exported.declarations?.some((declaration) => ts.isTypeOnlyExportDeclaration(declaration));
      (!typeOnly && target.flags & ts.SymbolFlags.Value ? names.values : names.types).push(exported.name);
    }
    found[entry] = { values: names.values.sort(), types: names.types.sort() };
  }
  return found;
}

/**
 * Types that left the main entry for a subpath, or for no entry: each line fails to typecheck if the main entry has
 * that name again (a compile-time check beside the runtime one).
 */
type LeftTheMainEntry = [
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.Integration,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.IntegrationContext,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.IntegrationFactory,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.AlertStore,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.Clock,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.HttpClient,
  // @ts-expect-error at @threatlib/core/cache
  MainTypes.CacheStore,
  // @ts-expect-error at @threatlib/core/feeds
  MainTypes.Feed,
  // @ts-expect-error at @threatlib/core/logging
  MainTypes.CreateLoggerOptions,
  // @ts-expect-error at @threatlib/core/logging
  MainTypes.LogCategory,
  // @ts-expect-error at @threatlib/core/cli
  MainTypes.LoadConfigOptions,
  // @ts-expect-error at @threatlib/core/lists
  MainTypes.LocalListOptions,
  // @ts-expect-error at @threatlib/core/lists
  MainTypes.ListStateStore,
  // @ts-expect-error no entry: the client builds lists from configuration
  MainTypes.WarninglistConfig,
];

describe("core's entries", () => {
  it('are the entries of the exports map, each pinned here', () => {
    expect(Object.keys(SOURCES).sort()).toEqual(Object.keys(ENTRIES).sort());
    expect(Object.keys(LOAD).sort()).toEqual(Object.keys(ENTRIES).sort());
  });

  it.each(Object.keys(ENTRIES))('%s has exactly its pinned runtime names, none undefined', async (entry) => {
    const loaded = await (LOAD[entry] as () => Promise<Record<string, unknown>>)();
    expect(Object.keys(loaded).sort()).toEqual(ENTRIES[entry]?.values);
    expect(Object.entries(loaded).filter(([, value]) => value === undefined)).toEqual([]);
  });

  it('each entry declares exactly its pinned types, and its values as values', { timeout: 60_000 }, () => {
    expect(declaredNames()).toEqual(ENTRIES);
    expectTypeOf<LeftTheMainEntry>().toBeArray();
  });

  it('no name is on two entries (each has one home)', () => {
    const homes = new Map<string, string[]>();
    for (const [entry, { values, types }] of Object.entries(ENTRIES)) {
      for (const name of [...values, ...types]) homes.set(name, [...(homes.get(name) ?? []), entry]);
    }
    expect([...homes].filter(([, entries]) => entries.length > 1)).toEqual([]);
  });
});
