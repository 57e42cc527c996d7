export { BrowserAlertStore, type BrowserAlertStoreOptions } from './browser-alert-store.js';
export { BrowserCache, type BrowserCacheOptions } from './browser-cache.js';
export { BrowserStorageError } from './browser-storage-error.js';
export type { BrowserStorageOptions, BrowserStorageType } from './browser-storage-options.js';
