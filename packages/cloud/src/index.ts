export {
  CloudIntegration,
  type CloudIntegrationRuntime,
  type PublishedThreatList,
} from './aws/cloud-integration.js';
export type { AwsCredentials, CloudIntegrationOptions } from './aws/cloud-options.js';
export {
  type CreatedThreatIntelSet,
  GuardDutyApi,
  THREAT_INTEL_SET_FORMATS,
  type ThreatIntelSet,
  type ThreatIntelSetFormat,
  type ThreatIntelSetInput,
  type ThreatIntelSetUpdate,
} from './aws/guardduty-api.js';
export { type PublishThreatListOptions, s3Location } from './aws/publish-options.js';
export { type ObjectPut, S3Api } from './aws/s3-api.js';
export {
  alertStoreIndicators,
  type ThreatIndicator,
  type ThreatIndicatorQuery,
  type ThreatIndicatorSource,
} from './aws/threat-indicators.js';
export { GUARDDUTY_MAX_ENTRIES, GUARDDUTY_TXT_TYPES, type ThreatListFormat } from './aws/threat-list.js';
export {
  type AlertIndicatorsPublished,
  CloudSiemIntegration,
  type CloudSiemRuntime,
  type CreatedIndicator,
  type IndicatorResult,
} from './azure/cloud-siem-integration.js';
export type { SentinelIndicator } from './azure/sentinel-indicator.js';
export type { ClientSecretOptions, CloudSiemIntegrationOptions } from './azure/sentinel-options.js';
export type { ThreatPublisherStats } from './azure/threat-publisher.js';
export { CloudError, type CloudErrorOptions, type CloudService } from './errors/cloud-error.js';
export {
  CloudThreatListIntegration,
  type CloudThreatListOptions,
  type CloudThreatListRuntime,
  createCloudIntegration,
  DEFAULT_THREAT_LIST_INTERVAL_MS,
  type ThreatListReceipt,
} from './integration/cloud-integration-factory.js';
export { createCloudSiemIntegration } from './integration/cloud-siem-integration.js';
