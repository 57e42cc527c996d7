export {
  type Fault,
  type RecordedRequest,
  type SiemEmulator,
  type SiemEmulatorOptions,
  startEmulatorServer,
  TEST_CA,
} from './emulator.js';
export {
  type EmulatedVendors,
  type RunningSiemEmulator,
  type StartSiemEmulatorOptions,
  startSiemEmulator,
} from './siem-emulator.js';
export type { EmulatorRequest, EmulatorResponse, VendorEmulator, VendorName } from './vendor.js';
export {
  concatenatedJson,
  createSplunkEmulator,
  type HecTokenSettings,
  type ReceivedEvent,
  SPLUNK_DEFAULTS,
  type SplunkEmulator,
  type SplunkEmulatorOptions,
} from './vendors/splunk.js';
export { type IndexedEvent, type ResultRow, runSearch, SplError } from './vendors/splunk-spl.js';
