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
