// The `@threatlib/core/integration` entry: what an integration package (or an application's own plugin) builds with,
// apart from what the client's users call, which is the main entry. The contract and the context core hands an
// integration; the pieces it builds on: the pooled HTTP client, retries, breakers and the scheduler, the clock, the
// endpoint policy, redaction and the views that keep secrets out of logs, the alert store contract and the alerts'
// normalisation; the checks every way in runs (a JSON text's depth and repeated keys, prototype keys, scales and
// units, the known option an unknown key was meant to be, what an HTTP header name and value may hold as undici
// sends them) and the render-time checks of text written for others.
// The errors an integration throws are the main entry's, since users catch them. Feed authors have `./feeds`, caches
// `./cache`, log transports `./logging`, HTTP servers `./http-server`.
export { AlertFieldsSchema } from '../alerts/alert.js';
export type { AlertStore } from '../alerts/alert-store.js';
export { normaliseAlert } from '../alerts/memory-alert-store.js';
export { isNormalisedAlert } from '../alerts/normalised-alert.js';
export { querySeverityRank } from '../alerts/query-severity.js';
export { parseSize } from '../cache/size.js';
export { configWithSecrets } from '../client/threat-client.js';
export { suggestOption } from '../config/suggest-option.js';
export { EventBus } from '../events/event-bus.js';
export { retryAfter } from '../feeds/feed-response.js';
export { entraRefusal, isAzureIdentityError, readAzureErrorBody } from '../http/azure-failure.js';
export { headerNameProblem, headersSchema, headerValueProblem } from '../http/header-fields.js';
export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type HttpRequest,
  type HttpResponse,
} from '../http/http-client.js';
export {
  CERTIFICATE_FAILURE_WORDS,
  isCertificateFailure,
  NETWORK_FAILURE_WORDS,
  networkFailureCode,
} from '../http/network-failure.js';
export { checkJsonStructure, type JsonStructureFault } from '../http-server/json-structure.js';
export { indicatorForOutput } from '../indicators/indicator-for-output.js';
export { withCategory } from '../logging/categories.js';
export { isSecretField, REDACTED, redactSecrets, redactText } from '../logging/redaction.js';
export {
  createOAuth2TokenSource,
  type OAuth2TokenSource,
  type OAuth2TokenSourceOptions,
} from '../oauth2/client-credentials.js';
export { recordIssues } from '../records/parse-record.js';
export { PROTOTYPE_KEYS, prototypeKeyPath, setOwn } from '../records/prototype-keys.js';
export { severityRank } from '../records/severity.js';
export { shownInput } from '../records/shown-input.js';
export {
  type BreakerOptions,
  type BreakerState,
  type BreakerStatus,
  CircuitBreaker,
} from '../scheduler/circuit-breaker.js';
export { type Clock, systemClock, type TimerOptions } from '../scheduler/clock.js';
export { FeedScheduler, type ScheduleOptions } from '../scheduler/feed-scheduler.js';
export { type RetryOptions, retryDelay } from '../scheduler/retry-policy.js';
export { type AbortSignalLike, untilAborted } from '../scout/until-aborted.js';
export { checkEndpoint } from '../security/endpoint-policy.js';
export {
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
  redactedView,
} from '../security/redacted-view.js';
export { parseStixTimestamp, stixTimestamp } from '../stix/stix-timestamp.js';
export { CONTROL_OR_SEPARATOR, codePointName, lineSafeJson, quoteForDisplay } from '../text/control-characters.js';
export { confidenceProblem, confidenceSchema } from '../units/confidence-scale.js';
export { type DurationBounds, durationProblem, durationSchema } from '../units/duration-unit.js';
export { writeFileAtomic } from '../vault/atomic-write.js';
export type {
  Integration,
  IntegrationClass,
  IntegrationClient,
  IntegrationContext,
  IntegrationHealth,
  SendAlertOptions,
} from './integration.js';
export type { IntegrationFactory } from './integration-factory.js';
export {
  INTEGRATION_PACKAGES,
  type IntegrationPackage,
  type PackagedIntegrationKey,
} from './integration-packages.js';
export { loadOptionalPeers, type OptionalPeerRequest } from './optional-peer.js';
export { type WebhookOutbox, type WebhookOutboxEntry, webhookOutboxEntry } from './webhook-outbox.js';
