export {
  type Fault,
  type RecordedRequest,
  type SiemEmulator,
  type SiemEmulatorOptions,
  startEmulatorServer,
  TEST_CA,
} from './emulator.js';
export {
  type LoopbackServer,
  listenOnLoopback,
  readEmulatorRequest,
  sendEmulatorResponse,
} from './emulator-http.js';
export {
  type EmulatedVendors,
  type RunningSiemEmulator,
  type StartSiemEmulatorOptions,
  startSiemEmulator,
} from './siem-emulator.js';
export type { EmulatorRequest, EmulatorResponse, VendorEmulator, VendorName } from './vendor.js';
export {
  type ArmWorkspace,
  armAuthFailure,
  armFailure,
  armMethodNotAllowed,
  checkArmApiVersion,
  checkArmWorkspace,
  readArmJson,
} from './vendors/azure-arm.js';
export {
  CHRONICLE_DEFAULTS,
  CHRONICLE_PERMISSIONS,
  type ChronicleEmulator,
  type ChronicleEmulatorOptions,
  createChronicleEmulator,
  type ReceivedUdmEvent,
} from './vendors/chronicle.js';
export {
  CHRONICLE_TOKEN_PATH,
  GOOGLE_TOKEN_AUDIENCE,
  type IssuedToken,
  type ServiceAccountKeyFile,
  type TokenAuthority,
} from './vendors/chronicle-oauth.js';
export { compileUdmQuery, UdmQueryError } from './vendors/chronicle-query.js';
export { readUdmEvent, UDM_EVENT_TYPES, UDM_SEVERITIES, type UdmEvent, UdmRejection } from './vendors/chronicle-udm.js';
export {
  createKibanaEmulator,
  KIBANA_DEFAULTS,
  type KibanaCase,
  type KibanaEmulator,
  type KibanaEmulatorOptions,
} from './vendors/kibana.js';
export {
  createQradarEmulator,
  QRADAR_DEFAULTS,
  type QradarEmulator,
  type QradarEmulatorOptions,
} from './vendors/qradar.js';
export { qradarError } from './vendors/qradar-api.js';
export { AqlError, type ArielEvent, parseAql, runAql } from './vendors/qradar-aql.js';
export type { LeefReader, QradarEvent } from './vendors/qradar-events.js';
export type { OffenseNote, ReferenceSet, ReferenceSetElement } from './vendors/qradar-state.js';
export {
  createSentinelEmulator,
  SentinelEmulator,
  type SentinelEmulatorOptions,
} from './vendors/sentinel.js';
export { ENTRA_RESOURCES, EntraAuthority } from './vendors/sentinel-authority.js';
export { INCIDENT_API_VERSIONS } from './vendors/sentinel-incidents.js';
export { INGESTION_MAX_BYTES } from './vendors/sentinel-ingestion.js';
export { KqlError, runKql } from './vendors/sentinel-kql.js';
export {
  type DroppedRow,
  SENTINEL_DEFAULTS,
  type SentinelConfig,
  type StoredIncident,
  THREATLIB_ALERT_COLUMNS,
} from './vendors/sentinel-workspace.js';
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
