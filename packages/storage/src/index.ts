export type {
  IndicatorHistory,
  IndicatorSighting,
  StoredThreat,
  StoredThreatInput,
  ThreatStorage,
} from './contract/threat-storage.js';
export { StorageError, type StorageOperation } from './errors/storage-error.js';
export type { StorageBackend, StorageBackendContext } from './integration/storage-backend.js';
export {
  createStorageIntegration,
  StorageIntegration,
  type StorageIntegrationOptions,
} from './integration/storage-integration.js';
