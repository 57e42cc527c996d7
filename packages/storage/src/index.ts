export type {
  CampaignReport,
  IndicatorHistory,
  IndicatorSighting,
  StoredCampaign,
  StoredThreat,
  StoredThreatInput,
  ThreatStorage,
} from './contract/threat-storage.js';
export type { DocumentAlertStore } from './document-store/document-alert-store.js';
export type { CollectionKey, DocumentStoreOptions } from './document-store/document-store-options.js';
export {
  type DocumentQueryOptions,
  type DocumentStoreRuntime,
  DocumentStoreStorage,
} from './document-store/document-store-storage.js';
export type { ExpiryDetection, ExpiryMode } from './document-store/expiry.js';
export type {
  DocumentWebhookOutbox,
  WebhookOutboxEntry,
  WebhookOutboxStore,
} from './document-store/webhook-outbox.js';
export { StorageError, type StorageOperation } from './errors/storage-error.js';
export { checkFilter, FILTER_LIMITS, type StorageFilter } from './filter/filter-allowlist.js';
export type { StorageBackend, StorageBackendContext } from './integration/storage-backend.js';
export {
  createStorageIntegration,
  StorageIntegration,
  type StorageIntegrationOptions,
} from './integration/storage-integration.js';
export type { IndexedDocument } from './search-index/bulk-indexer.js';
export { DocumentRejectedError } from './search-index/elasticsearch-errors.js';
export type { SearchAlertStore } from './search-index/search-alert-store.js';
export type { SearchDocument, StoredSearchDocument } from './search-index/search-document.js';
export type { SearchIndexName, SearchIndexOptions } from './search-index/search-index-options.js';
export {
  type BulkIndexFailure,
  type BulkIndexReport,
  type DocumentIndexKey,
  type SearchHit,
  type SearchIndexRuntime,
  type SearchIndexStats,
  SearchIndexStorage,
  type SearchResult,
  type StoredCampaignDocument,
} from './search-index/search-index-storage.js';
export {
  checkSearch,
  QUERY_CLAUSES,
  QUERY_LIMITS,
  type SearchOptions,
  type SearchQuery,
} from './search-index/search-query.js';
