import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration-error.js';

/** Where browser storage keeps its records. */
export type BrowserStorageType = 'indexeddb' | 'localstorage' | 'memory';

/**
 * The browser storage options of the interface (`{type, dbName, version, encryptionKey}`), as the cache and the
 * alert store of a page take them.
 */
export interface BrowserStorageOptions {
  /** `indexeddb` (default), `localstorage`, or `memory` (nothing survives a reload). */
  type?: BrowserStorageType;
  /** The IndexedDB database, or the `localStorage` key prefix. Default `threatlib`. */
  dbName?: string;
  /** The schema version (a positive integer, default 1). Opening with a higher one upgrades; a lower one is refused. */
  version?: number;
  /**
   * With it, every stored value is encrypted with AES-256-GCM (WebCrypto) under a key derived from this text with
   * PBKDF2-SHA-256 and a random salt kept beside the records, and every record's key is an HMAC-SHA-256 of the
   * cache key or alert id, so neither an indicator nor a verdict is readable in storage.
   */
  encryptionKey?: string;
  /**
   * PBKDF2 iterations for a new database (an existing one keeps those it was made with). Default 600,000, OWASP's
   * figure for PBKDF2-SHA-256; lower it only for a high-entropy `encryptionKey`. 1,000 to 10,000,000.
   */
  keyDerivationIterations?: number;
}

/** {@link BrowserStorageOptions} with every default filled in. */
export interface ResolvedBrowserStorageOptions {
  type: BrowserStorageType;
  dbName: string;
  version: number;
  encryptionKey: string | undefined;
  keyDerivationIterations: number;
}

const TYPES: readonly BrowserStorageType[] = ['indexeddb', 'localstorage', 'memory'];
const DB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Checks and fills in browser storage options.
 *
 * @throws {ConfigurationError} naming every option that is wrong (never quoting `encryptionKey`).
 */
export function resolveBrowserStorageOptions(options: BrowserStorageOptions = {}): ResolvedBrowserStorageOptions {
  const issues: ConfigurationIssue[] = [];
  const type = options.type ?? 'indexeddb';
  if (!TYPES.includes(type)) {
    issues.push({ path: 'storage.type', message: `expected one of ${TYPES.join(', ')}, got ${JSON.stringify(type)}` });
  }
  const dbName = options.dbName ?? 'threatlib';
  if (typeof dbName !== 'string' || !DB_NAME.test(dbName)) {
    issues.push({
      path: 'storage.dbName',
      message: `expected 1 to 100 letters, digits, ".", "_" or "-" (starting with a letter or digit), got ${JSON.stringify(dbName)}`,
    });
  }
  const version = options.version ?? 1;
  if (!Number.isSafeInteger(version) || version < 1) {
    issues.push({ path: 'storage.version', message: `expected a positive integer, got ${JSON.stringify(version)}` });
  }
  const { encryptionKey } = options;
  if (encryptionKey !== undefined && (typeof encryptionKey !== 'string' || encryptionKey.length === 0)) {
    issues.push({ path: 'storage.encryptionKey', message: 'expected a non-empty string' });
  }
  const iterations = options.keyDerivationIterations ?? 600_000;
  if (!Number.isSafeInteger(iterations) || iterations < 1000 || iterations > 10_000_000) {
    issues.push({
      path: 'storage.keyDerivationIterations',
      message: `expected an integer from 1000 to 10000000, got ${JSON.stringify(iterations)}`,
    });
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
  return { type, dbName, version, encryptionKey, keyDerivationIterations: iterations };
}
