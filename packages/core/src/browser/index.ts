// @threatlib/core/browser: what a page uses besides the client (issue 24): the secure-context check and the browser
// storage (IndexedDB, localStorage or memory, encrypted at rest with WebCrypto) for the cache and the alert store.

export {
  BrowserAlertStore,
  type BrowserAlertStoreOptions,
  BrowserCache,
  type BrowserCacheOptions,
  BrowserStorageError,
  type BrowserStorageOptions,
  type BrowserStorageType,
} from '../browser-storage/index.js';
export { InsecureContextError } from '../errors/insecure-context-error.js';
export { checkSecureContext, type SecureContextScope } from './secure-context.js';
