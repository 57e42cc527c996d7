export {
  type FeedEmulator,
  type FeedEmulatorOptions,
  INVALID_KEY,
  type RecordedRequest,
  type Script,
  startFeedEmulator,
  VENDORS,
} from './emulator.js';
export type {
  Behaviour,
  EmulatedFeed,
  EmulatorRequest,
  EmulatorResponse,
  Routed,
  VendorApi,
} from './vendor-api.js';
