// `@threatlib/core`: what an application calls. The client and the types of what it returns, its configuration,
// the records the interface documents, the errors users catch, indicators and STIX conversion. Every name here is a
// promise kept across minor versions, and universal: nothing it reaches at import time needs Node.js (what does, a
// file, a socket, a package loaded by name, is loaded on first use; see src/browser/main-entry-node-imports.txt).
// The other readers have their own entries: `./integration` (integration packages and plugins), `./feeds` (feed
// authors), `./lists` (lists made apart from the configuration), `./cache`, `./logging`, `./http-server`, `./cli`,
// `./metrics`, `./misp`, `./testing` (CONTRIBUTING.md).
// `entries.test.ts` pins this list: adding a name is a reviewed change.

// Records.
export { type Alert, type AlertInput, AlertInputSchema, AlertSchema } from './alerts/alert.js';
export { type AlertDelivery, AlertDeliverySchema, type DeliveryStatus } from './alerts/alert-delivery.js';
export { ALERT_METADATA_MAX_BYTES } from './alerts/alert-metadata.js';
export type { AlertPage, AlertQuery } from './alerts/alert-store.js';
export type { MemoryAlertLimits } from './alerts/memory-alert-limits.js';
export {
  MemoryAlertStore,
  type MemoryAlertStoreOptions,
  type MemoryAlertStoreStats,
} from './alerts/memory-alert-store.js';
// Errors.
export { CacheError } from './cache/cache-error.js';
export type { CampaignDetectedEvent, CampaignLinkKind, CampaignObservation } from './campaigns/campaign.js';
export { CampaignTracker, type CampaignTrackerOptions } from './campaigns/campaign-tracker.js';
// The client.
export type { ListSource } from './client/added-lists.js';
export type { AlertDeliveryCounts, ClientAlerts } from './client/alerting.js';
export type { CorrelationResult } from './client/correlation-result.js';
export type { ListStatus } from './client/list-status.js';
export {
  type ClientState,
  type IntegrationHealthReport,
  ThreatClient,
  type ThreatClientOptions,
  type VaultClient,
} from './client/threat-client.js';
// Configuration.
export type { Environment } from './config/environment.js';
export { mergeConfig } from './config/merge-config.js';
export { parseConfig } from './config/parse-config.js';
export {
  type AlertingConfig,
  type ApiKeyConfig,
  type ClusterConfig,
  type LoggingConfig,
  type PerformanceConfig,
  type PwaConfig,
  type ResolvedConfig,
  type SecurityConfig,
  type Strategy,
  type ThreatConfig,
  ThreatConfigSchema,
} from './config/schema.js';
export { type ConfigWarning, validateConfig } from './config/validate-config.js';
export type { Contribution, Correlation } from './correlation/correlate.js';
export type { Thresholds } from './correlation/strategies.js';
export { ConfigurationError, type ConfigurationIssue } from './errors/configuration-error.js';
export { InsecureEndpointError } from './errors/insecure-endpoint-error.js';
export {
  IntegrationError,
  type IntegrationErrorCode,
  type IntegrationErrorOptions,
  type IntegrationPhase,
} from './errors/integration-error.js';
export { InvalidIndicatorError } from './errors/invalid-indicator-error.js';
export { RateLimitError } from './errors/rate-limit-error.js';
export { ThreatlibError, type ThreatlibErrorOptions } from './errors/threatlib-error.js';
export { ValidationError } from './errors/validation-error.js';
// Events.
export type { AuditAction, AuditEvent } from './events/audit-event.js';
export type {
  ClusterDegradedEvent,
  ClusterRestoredEvent,
  FeedErrorEvent,
  QuotaLowEvent,
  ThreatEventHandler,
  ThreatEventName,
  ThreatEvents,
  ThreatFoundEvent,
} from './events/threat-events.js';
export { BUILTIN_FEED_IDS, type BuiltinFeedId } from './feeds/feed-ids.js';
export { FEED_STATUSES, type FeedResult, type FeedStatus, type FeedVerdict } from './feeds/feed-result.js';
export { HttpError, type HttpFailureKind } from './http/http-error.js';
// Indicators.
export { INDICATOR_TYPES, type Indicator, type IndicatorType, isIndicatorType } from './indicators/indicator.js';
export {
  INDICATOR_TYPE_NAMES,
  type IndicatorTypeName,
  isIndicatorTypeName,
} from './indicators/indicator-type-name.js';
export { parseIndicator } from './indicators/parse-indicator.js';
export type { IntegrationRegistry } from './integration/integration.js';
export type { IntegrationPackageLoader } from './integration/load-integration-package.js';
export { ListLoadError } from './lists/list-load-error.js';
export type { TaxiiListStatus, TaxiiPollStatus } from './lists/taxii/taxii-list-source.js';
// Logging: the logger a client takes (any pino-compatible one) and the one that writes nothing.
export { type Logger, silentLogger } from './logging/logger.js';
export type {
  CacheHealth,
  CheckStatus,
  FeedHealth,
  HealthReport,
  HealthStatus,
  IntegrationHealthCheck,
  VaultHealth,
} from './monitoring/health-report.js';
export type { MonitoringAlert, MonitoringAlertStats, MonitoringCondition } from './monitoring/monitoring-alert.js';
export { OAuth2TokenError, type OAuth2TokenErrorDetails } from './oauth2/oauth2-token-error.js';
export { type Case, type CaseInput, CaseSchema, type Priority } from './records/case.js';
export { type EnrichedIndicator, EnrichedIndicatorSchema } from './records/enriched-indicator.js';
export {
  type IndicatorInput,
  type IndicatorRecord,
  type IndicatorRef,
  IndicatorRefSchema,
  IndicatorSchema,
} from './records/indicator-record.js';
export { parseRecord } from './records/parse-record.js';
export {
  type IndicatorMessage,
  IndicatorMessageSchema,
  type ProcessedMessage,
  ProcessedMessageSchema,
} from './records/queue-messages.js';
export {
  riskScoreForConfidence,
  SEVERITIES,
  type Severity,
  SeveritySchema,
  severityForRiskScore,
  THREAT_LEVELS,
  type ThreatLevel,
  threatLevelForRiskScore,
} from './records/severity.js';
export { type StreamEvent, type StreamEventInput, StreamEventSchema, streamEventFor } from './records/stream-event.js';
export type { FeedQuotaReport } from './scheduler/quota-report.js';
export type { FeedStatusReport } from './scout/feed-pipeline.js';
export type { ScoutOptions, ScoutResult, WarninglistHit } from './scout/scout-engine.js';
export type { ScoutManyItem, ScoutManyOptions, ScoutProgress } from './scout/scout-many.js';
// STIX 2.1.
export {
  type FromStixBundleOptions,
  fromStixBundle,
  type StixBundleIndicator,
  type StixBundleReading,
  type StixBundleSkip,
} from './stix/from-stix-bundle.js';
export {
  type StixBundle,
  type StixExternalReference,
  type StixIdentity,
  type StixIndicator,
  stixIndicatorId,
  THREATLIB_STIX_IDENTITY,
  THREATLIB_STIX_NAMESPACE,
} from './stix/stix-objects.js';
export { toStixPattern } from './stix/stix-pattern.js';
export {
  type StixCorrelationInput,
  type StixSourceAnswer,
  type ToStixBundleOptions,
  toStixBundle,
} from './stix/to-stix-bundle.js';
// The vault.
export type { EnvelopeKdf, VaultEnvelope } from './vault/envelope.js';
export type { Argon2idParams, KdfParams, Pbkdf2Params } from './vault/kdf.js';
export {
  type LockReason,
  type RotatedKeys,
  type RotateKeysCallback,
  Vault,
  type VaultEvents,
  type VaultSettings,
} from './vault/vault.js';
export { VaultAuthError } from './vault/vault-auth-error.js';
export { VaultCorruptError } from './vault/vault-corrupt-error.js';
export { VaultLockedError } from './vault/vault-locked-error.js';
export type { VaultOptions } from './vault/vault-options.js';
