export {
  type CommonSiemOptions,
  CredentialsSchema,
  type SiemConnectorOptions,
  type SiemCredentials,
  type SiemTlsOptions,
} from './connector/connector-options.js';
export { SiemAuthenticationError } from './connector/siem-authentication-error.js';
export { SIEMConnector, type SiemCallOptions, type SiemConnectorRuntime } from './connector/siem-connector.js';
export { SiemError, type SiemErrorCode, type SiemErrorDetails, type SiemOperation } from './connector/siem-error.js';
export { SiemRequestError } from './connector/siem-request-error.js';
export { SiemTimeoutError } from './connector/siem-timeout-error.js';
export { SiemUnreachableError } from './connector/siem-unreachable-error.js';
export { SiemUnsupportedError } from './connector/siem-unsupported-error.js';
export { createSiemIntegration, SiemIntegration } from './integration/siem-integration.js';
export type { ConnectionReport, DeliveryReceipt } from './platforms/platform.js';
export { PLATFORM_IDS, type PlatformId } from './platforms/platform-id.js';
