export {
  type Alert,
  AlertFieldsSchema,
  type AlertInput,
  AlertInputSchema,
  AlertSchema,
  type NormalisedAlertInput,
} from './alerts/alert.js';
export {
  type AlertDelivery,
  AlertDeliverySchema,
  DELIVERY_STATUSES,
  type DeliveryStatus,
} from './alerts/alert-delivery.js';
export { ALERT_METADATA_MAX_BYTES } from './alerts/alert-metadata.js';
export type { AlertPage, AlertQuery } from './alerts/alert-store.js';
export { DEFAULT_MEMORY_ALERT_LIMITS, type MemoryAlertLimits } from './alerts/memory-alert-limits.js';
export {
  MemoryAlertStore,
  type MemoryAlertStoreOptions,
  type MemoryAlertStoreStats,
} from './alerts/memory-alert-store.js';
export { isNormalisedAlert } from './alerts/normalised-alert.js';
export { CacheError } from './cache/cache-error.js';
export type { CampaignDetectedEvent, CampaignLinkKind, CampaignObservation } from './campaigns/campaign.js';
export { CampaignTracker, type CampaignTrackerOptions } from './campaigns/campaign-tracker.js';
export type { AlertDeliveryCounts, ClientAlerts } from './client/alerting.js';
export {
  type ClientState,
  type CorrelationResult,
  type IntegrationHealthReport,
  ThreatClient,
  type ThreatClientOptions,
  type VaultClient,
} from './client/threat-client.js';
export {
  apiKeyVariable,
  configFromEnvironment,
  ENVIRONMENT_VARIABLES,
  type Environment,
  OAUTH2_CLIENT_SECRET_VARIABLE,
} from './config/environment.js';
export { type FeedReadiness, feedReadiness, redactConfig } from './config/feed-readiness.js';
export { CONFIG_FILE_NAMES, type LoadConfigOptions, loadConfig } from './config/load-config.js';
export { mergeConfig } from './config/merge-config.js';
export { parseConfig } from './config/parse-config.js';
export {
  type AlertingConfig,
  type ApiKeyConfig,
  type ClusterConfig,
  type LoggingConfig,
  type PerformanceConfig,
  type ResolvedConfig,
  type SecurityConfig,
  STRATEGIES,
  type Strategy,
  type ThreatConfig,
  ThreatConfigSchema,
} from './config/schema.js';
export { type ConfigWarning, validateConfig } from './config/validate-config.js';
export {
  type Contribution,
  type Correlation,
  type CorrelationInput,
  correlateResults,
} from './correlation/correlate.js';
export {
  DEFAULT_FEED_WEIGHT,
  DEFAULT_LIST_WEIGHT,
  DEFAULT_SOURCE_WEIGHTS,
  STRATEGY_THRESHOLDS,
  type Thresholds,
} from './correlation/strategies.js';
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
export { BUILTIN_FEED_IDS, BUILTIN_FEEDS, type BuiltinFeedId, isBuiltinFeedId } from './feeds/feed-ids.js';
export { FEED_STATUSES, type FeedResult, type FeedStatus, type FeedVerdict } from './feeds/feed-result.js';
export { HttpError, type HttpFailureKind } from './http/http-error.js';
export * from './indicators/index.js';
export type { IntegrationRegistry } from './integrations/integration.js';
export type { IntegrationPackageLoader } from './integrations/load-integration-package.js';
export * from './lists/index.js';
export { LOG_CATEGORIES, type LogCategory } from './logging/categories.js';
export {
  type CreateLoggerOptions,
  closeLogger,
  createLogger,
  flushLogger,
  logTransportStats,
  type PinoLogger,
} from './logging/create-logger.js';
export type { LogFormat } from './logging/formats.js';
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
export { OAUTH2_CLIENT_SECRET_VAULT_KEY } from './oauth2/client-token-source.js';
export { OAuth2TokenError, type OAuth2TokenErrorDetails } from './oauth2/oauth2-token-error.js';
export * from './records/index.js';
export type { FeedQuotaReport } from './scheduler/quota-report.js';
export type { FeedStatusReport } from './scout/feed-pipeline.js';
export type { LocalSource, Prefilter, ScoutOptions, ScoutResult, WarninglistHit } from './scout/scout-engine.js';
export type { ScoutManyItem, ScoutManyOptions, ScoutProgress } from './scout/scout-many.js';
export * from './stix/index.js';
export { ENVELOPE_FORMAT, ENVELOPE_VERSION, type EnvelopeKdf, type VaultEnvelope } from './vault/envelope.js';
export { ARGON2ID_DEFAULTS, type Argon2idParams, type KdfParams, type Pbkdf2Params } from './vault/kdf.js';
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
