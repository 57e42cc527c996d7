import type { AlertStore } from '../alerts/alert-store.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { Logger } from '../logging/logger.js';
import { BrowserAlertStore } from './browser-alert-store.js';
import { BrowserCache } from './browser-cache.js';

/** Whether this scope has the storage `type` names (a page; Node.js has neither IndexedDB nor `localStorage`). */
function available(type: 'indexeddb' | 'localstorage'): boolean {
  try {
    const scope = globalThis as { indexedDB?: unknown; localStorage?: { getItem?: unknown } };
    return type === 'indexeddb'
      ? typeof scope.indexedDB === 'object' && scope.indexedDB !== null
      : typeof scope.localStorage?.getItem === 'function';
  } catch {
    // A page whose storage is blocked (third-party cookies off) throws on reading localStorage.
    return false;
  }
}

/**
 * The verdict cache and alert store the documented `storage` option asks for: with `type` `indexeddb` or
 * `localstorage` (or an `encryptionKey`), a {@link BrowserCache} (when `caching.enabled`) and a
 * {@link BrowserAlertStore} in that storage, so verdicts and alerts survive a reload. Undefined for the default
 * (`memory` without a key): the client's usual in-memory cache and alert store. Nothing is opened here.
 *
 * @throws {ConfigurationError} when the storage does not exist in this runtime (IndexedDB or `localStorage` under
 *   Node.js), or `caching.type` names another back end for the verdicts.
 */
export function browserStores(
  config: Pick<ResolvedConfig, 'storage' | 'caching'>,
  options: { now: () => number; logger: Logger },
): { cache: CacheStore | undefined; alertStore: AlertStore } | undefined {
  const { type, dbName, version, encryptionKey } = config.storage;
  if (type === 'memory' && encryptionKey === undefined) return undefined;
  if (type !== 'memory' && !available(type)) {
    const what = type === 'indexeddb' ? 'IndexedDB' : 'localStorage';
    throw new ConfigurationError([
      {
        path: 'storage.type',
        message: `"${type}" needs a browser: this runtime has no ${what} (under Node.js use "memory", the default, and caching for the verdicts)`,
      },
    ]);
  }
  if (config.caching.enabled && config.caching.type !== 'memory') {
    throw new ConfigurationError([
      {
        path: 'caching.type',
        message: `"${config.caching.type}" cannot be used with storage.type "${type}": the browser storage keeps the verdicts (leave caching.type at "memory")`,
      },
    ]);
  }
  const storage = { type, dbName, version, ...(encryptionKey === undefined ? {} : { encryptionKey }) };
  return {
    cache: config.caching.enabled ? new BrowserCache({ ...storage, now: options.now }) : undefined,
    alertStore: new BrowserAlertStore({ ...storage, logger: options.logger }),
  };
}
