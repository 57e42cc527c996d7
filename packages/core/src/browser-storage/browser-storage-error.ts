import { ThreatlibError } from '../errors/threatlib-error.js';

/**
 * Thrown when browser storage cannot be used: no IndexedDB or `localStorage` in this scope, a database newer than
 * the `version` asked for, an `encryptionKey` other than the one the database was written with, a record that does
 * not decrypt, a full quota. The message names the database (`dbName`) and the storage type, never the key.
 */
export class BrowserStorageError extends ThreatlibError {
  /** `indexeddb`, `localstorage` or `memory`. */
  readonly storage: string;
  /** The database's name (`dbName`). */
  readonly dbName: string;

  constructor(storage: string, dbName: string, message: string, options: { cause?: unknown } = {}) {
    super('BROWSER_STORAGE_FAILED', message, options);
    this.name = 'BrowserStorageError';
    this.storage = storage;
    this.dbName = dbName;
  }

  /** Whether `error` is a {@link BrowserStorageError}, from any copy of the package. */
  static override isInstance(error: unknown): error is BrowserStorageError {
    return ThreatlibError.hasCode(error, 'BROWSER_STORAGE_FAILED');
  }
}
