export { type PaceReport, paceOf } from './arrivals.js';
export {
  type ArrivalLog,
  type EmulatorStats,
  type FeedEmulator,
  type FeedEmulatorOptions,
  type FeedStats,
  FIXTURE_REFERENCE_TIMES,
  INVALID_KEY,
  type RecordedRequest,
  type Script,
  startFeedEmulator,
  VENDORS,
} from './emulator.js';
export { type Fault, FaultInjector, type FaultOptions, mulberry32 } from './fault-injector.js';
export type { DateKeys } from './fixture-dates.js';
export { type Quota, TokenBucket, type TokenDecision } from './token-bucket.js';
export type {
  Behaviour,
  EmulatedFeed,
  EmulatorRequest,
  EmulatorResponse,
  Routed,
  VendorApi,
} from './vendor-api.js';
