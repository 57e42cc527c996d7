export type { BatchOutcome } from './connector/batch-outcome.js';
export {
  type CommonSiemOptions,
  CredentialsSchema,
  type SiemConnectorOptions,
  type SiemCredentials,
  type SiemTlsOptions,
} from './connector/connector-options.js';
export { SiemAuthenticationError } from './connector/siem-authentication-error.js';
export {
  type CreateCaseOptions,
  SIEMConnector,
  type SiemCallOptions,
  type SiemConnectorRuntime,
} from './connector/siem-connector.js';
export { SiemError, type SiemErrorCode, type SiemErrorDetails, type SiemOperation } from './connector/siem-error.js';
export { SiemRequestError } from './connector/siem-request-error.js';
export { SiemTimeoutError } from './connector/siem-timeout-error.js';
export { SiemUnreachableError } from './connector/siem-unreachable-error.js';
export { SiemUnsupportedError } from './connector/siem-unsupported-error.js';
export { cefEventForAlert } from './formats/alert-cef.js';
export { jsonForAlert } from './formats/alert-json.js';
export { type LeefAlertOptions, leefEventForAlert } from './formats/alert-leef.js';
export { eventSeverity } from './formats/alert-severity.js';
export { type CefEvent, formatCef } from './formats/cef.js';
export { parseCef } from './formats/cef-parser.js';
export { EventFormatError, type EventFormatName } from './formats/event-format-error.js';
export { EVENT_FORMATS, type EventFormat, formatAlert } from './formats/event-formats.js';
export { formatLeef, type LeefEvent, type LeefEventInput, type LeefVersion } from './formats/leef.js';
export { parseLeef } from './formats/leef-parser.js';
export type { SiemForwarderOptions } from './forwarder/forwarder-options.js';
export { type ForwardReceipt, SiemForwarder } from './forwarder/siem-forwarder.js';
export { SiemForwarderError } from './forwarder/siem-forwarder-error.js';
export { createSiemForwarderIntegration } from './forwarder/siem-forwarder-integration.js';
export { createSiemIntegration, SiemIntegration } from './integration/siem-integration.js';
export type { ConnectionReport, DeliveryReceipt } from './platforms/platform.js';
export { PLATFORM_IDS, type PlatformId } from './platforms/platform-id.js';
