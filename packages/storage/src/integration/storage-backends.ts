import { documentStoreBackend } from '../document-store/document-store-backend.js';
import { searchIndexBackend } from '../search-index/search-index-backend.js';
import type { StorageBackend } from './storage-backend.js';

/**
 * The back ends `integrations.storage.type` names: each back end's folder exports its {@link StorageBackend}, listed
 * here under its `type`.
 */
export const STORAGE_BACKENDS: Readonly<Record<string, StorageBackend>> = {
  mongodb: documentStoreBackend as StorageBackend,
  elasticsearch: searchIndexBackend as StorageBackend,
};
