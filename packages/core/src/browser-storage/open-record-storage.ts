import { type BrowserStorageOptions, resolveBrowserStorageOptions } from './browser-storage-options.js';
import { IndexedDbBackend } from './indexeddb-backend.js';
import { LocalStorageBackend } from './local-storage-backend.js';
import { MemoryBackend } from './memory-backend.js';
import type { RecordBackend } from './record-backend.js';
import { encryptedSealer, plainSealer, type RecordSealer } from './record-sealer.js';

/** An open browser database: where records go and how they are sealed. */
export interface RecordStorage {
  backend: RecordBackend;
  sealer: RecordSealer;
  type: string;
  dbName: string;
}

/**
 * Opens the database `options` describe (upgrading it to `version`), and its sealer. For `type: 'memory'`, the
 * records are `memory`'s when given (records that outlive this opening), else a new, empty store's.
 *
 * @throws {ConfigurationError} for bad options.
 * @throws {BrowserStorageError} when the storage cannot be opened or the `encryptionKey` is not the database's.
 */
export async function openRecordStorage(
  options: BrowserStorageOptions,
  memory?: (dbName: string) => MemoryBackend,
): Promise<RecordStorage> {
  const resolved = resolveBrowserStorageOptions(options);
  const { type, dbName, version, encryptionKey } = resolved;
  const backend: RecordBackend =
    type === 'indexeddb'
      ? await IndexedDbBackend.open(dbName, version)
      : type === 'localstorage'
        ? LocalStorageBackend.open(dbName, version)
        : (memory?.(dbName) ?? new MemoryBackend());
  try {
    const sealer =
      encryptionKey === undefined
        ? plainSealer
        : await encryptedSealer(backend, encryptionKey, resolved.keyDerivationIterations, { storage: type, dbName });
    return { backend, sealer, type, dbName };
  } catch (error) {
    await backend.close();
    throw error;
  }
}
