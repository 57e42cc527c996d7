export { CloudError, type CloudErrorOptions, type CloudService } from './errors/cloud-error.js';
export { createCloudIntegration } from './integration/cloud-integration-factory.js';
export { createCloudSiemIntegration } from './integration/cloud-siem-integration.js';
