// The `@threatlib/core/integration` entry: what an integration package (or an application's own plugin) builds with,
// apart from what the client's users call, which is the main entry. The contract and the context core hands an
// integration; the pieces it builds on: the pooled HTTP client, retries, quotas and breakers, the endpoint policy,
// redaction and syslog framing, caches, the alert stores' normalisation; and the feed adapters with their helpers.
// The errors an integration throws are the main entry's, since users catch them.
// It also has the hardening of an HTTP server an integration runs itself (the REST server, a webhook receiver): a cap
// on each client's connections, the timeouts that keep slow clients from holding them, and the one-pass check of a
// JSON text's depth and repeated keys that every way in (request bodies, queue messages) runs before parsing.
// And the checks of scales and units every package's inputs share: a 0..100 confidence that refuses a 0..1 score, a
// duration that names the unit it is in (with what was probably meant), the known option an unknown key was meant to be,
// and what an HTTP header name and value may hold (what undici sends), for every header map a user configures.
export type { AlertStore } from '../alerts/alert-store.js';
export { normaliseAlert } from '../alerts/memory-alert-store.js';
export { cacheKey, fingerprint } from '../cache/cache-key.js';
export type { CacheEntry, CacheStore } from '../cache/cache-store.js';
export { createCache } from '../cache/create-cache.js';
export { FileCache } from '../cache/file-cache.js';
export { KvServerCache } from '../cache/kvserver-cache.js';
export { DEFAULT_MEMORY_CACHE_SIZE, MemoryCache } from '../cache/memory-cache.js';
export { parseSize } from '../cache/size.js';
export { EMBEDDED_DEFAULTS, EXIT as CONFIG_EXIT_CODES, runConfigCommand } from '../cli/config-command.js';
export { configWithSecrets } from '../client/threat-client.js';
export { suggestOption } from '../config/suggest-option.js';
export { EventBus } from '../events/event-bus.js';
export { abuseipdbFeed } from '../feeds/abuseipdb.js';
export { BUILTIN_FEED_LIST } from '../feeds/builtin-feeds.js';
export { crowdsecFeed } from '../feeds/crowdsec.js';
export type { Feed, FeedLookupContext, FeedLookupResult } from '../feeds/feed.js';
export { assertFeed, FeedRegistry } from '../feeds/feed-registry.js';
export {
  type AnswerFields,
  answer,
  failure,
  failureFromResponse,
  type Parsed,
  parseBody,
  retryAfter,
} from '../feeds/feed-response.js';
export { otxFeed } from '../feeds/otx.js';
export { urlhausFeed } from '../feeds/urlhaus.js';
export { virustotalFeed } from '../feeds/virustotal.js';
export { headerNameProblem, headersSchema, headerValueProblem } from '../http/header-fields.js';
export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type HttpRequest,
  type HttpResponse,
} from '../http/http-client.js';
export {
  type ConnectionGuardOptions,
  guardConnections,
  type RefusedConnections,
} from '../http-server/connection-guard.js';
export { checkJsonStructure, type JsonStructureFault } from '../http-server/json-structure.js';
export { SERVER_TIMEOUT_DEFAULTS, type ServerTimeouts, serverTimeoutOptions } from '../http-server/server-timeouts.js';
export type {
  Integration,
  IntegrationClass,
  IntegrationClient,
  IntegrationContext,
  IntegrationHealth,
  SendAlertOptions,
} from '../integrations/integration.js';
export type { IntegrationFactory } from '../integrations/integration-factory.js';
export {
  INTEGRATION_PACKAGES,
  type IntegrationPackage,
  type PackagedIntegrationKey,
} from '../integrations/integration-packages.js';
export { loadOptionalPeers, type OptionalPeerRequest } from '../integrations/optional-peer.js';
export { withCategory } from '../logging/categories.js';
export { formatText } from '../logging/formats.js';
export { isSecretField, REDACTED, redactSecrets, redactText } from '../logging/redaction.js';
export {
  facilityCode,
  formatRfc5424,
  octetCountingFrame,
  SYSLOG_FACILITIES,
  type SyslogFacilityName,
  type SyslogMessage,
  syslogSeverity,
} from '../logging/rfc5424.js';
export { FileTransport, type FileTransportOptions } from '../logging/transports/file-transport.js';
export type { LogEntry, LogSink } from '../logging/transports/log-sink.js';
export { SyslogTransport, type SyslogTransportOptions } from '../logging/transports/syslog-transport.js';
export { WebhookTransport, type WebhookTransportOptions } from '../logging/transports/webhook-transport.js';
export {
  createOAuth2TokenSource,
  type OAuth2TokenSource,
  type OAuth2TokenSourceOptions,
} from '../oauth2/client-credentials.js';
export { shownInput } from '../records/shown-input.js';
export {
  type BreakerOptions,
  type BreakerState,
  type BreakerStatus,
  CircuitBreaker,
} from '../scheduler/circuit-breaker.js';
export { type Clock, systemClock, type TimerOptions } from '../scheduler/clock.js';
export { DEFAULT_FEED_QUOTAS, type QuotaWindows } from '../scheduler/default-quotas.js';
export { FeedQuota, type WindowName, type WindowStatus } from '../scheduler/feed-quota.js';
export { FeedScheduler, type ScheduleOptions } from '../scheduler/feed-scheduler.js';
export { quotaFor } from '../scheduler/quota-for.js';
export { isRetryable, type RetryOptions, retryDelay } from '../scheduler/retry-policy.js';
export { streamScouts } from '../scout/scout-many.js';
export { checkEndpoint } from '../security/endpoint-policy.js';
export {
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
  redactedView,
} from '../security/redacted-view.js';
export { confidenceProblem, confidenceSchema } from '../units/confidence-scale.js';
export { type DurationBounds, durationProblem, durationSchema } from '../units/duration-unit.js';
export { writeFileAtomic } from '../vault/atomic-write.js';
