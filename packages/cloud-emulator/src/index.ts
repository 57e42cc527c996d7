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
export { type AccessKey, type SigV4Expectation, type SigV4Refusal, verifySigV4 } from './sigv4.js';
