export type { CloudRequest, CloudResponse, CloudService } from './cloud-service.js';
export {
  type EmulatorServer,
  type EmulatorServerOptions,
  type RecordedRequest,
  startEmulatorServer,
} from './emulator-server.js';
export {
  GUARDDUTY_TEST_KEY,
  GuardDutyEmulator,
  type GuardDutyEmulatorOptions,
  type RunningGuardDutyEmulator,
  type StoredThreatIntelSet,
  startGuardDutyEmulator,
  THREAT_INTEL_SET_FORMATS,
  THREAT_INTEL_SET_LIMIT,
} from './guardduty.js';
export {
  type RunningSentinelEmulator,
  SentinelEmulator,
  type SentinelEmulatorOptions,
  startSentinelEmulator,
} from './sentinel.js';
export { SENTINEL_WORKSPACE_API_VERSIONS } from './sentinel-arm.js';
export { SENTINEL_STIX_TYPES, stixObjectErrors } from './sentinel-stix.js';
export { checkStixPattern, StixPatternError } from './sentinel-stix-pattern.js';
export { UPLOAD_API_VERSIONS } from './sentinel-upload.js';
export {
  type ReceivedUpload,
  SENTINEL_TI_DEFAULTS,
  type SentinelTiConfig,
  type StoredLegacyIndicator,
  type StoredStixObject,
} from './sentinel-workspace.js';
export { type AccessKey, type SigV4Expectation, type SigV4Refusal, verifySigV4 } from './sigv4.js';
