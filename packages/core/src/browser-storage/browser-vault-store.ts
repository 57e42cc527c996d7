import { utf8Bytes, utf8Text } from '../bytes/host-bytes.js';
import { ValidationError } from '../errors/validation-error.js';
import { VaultCorruptError } from '../vault/vault-corrupt-error.js';
import type { VaultStore } from '../vault/vault-store.js';
import { BrowserStorageError } from './browser-storage-error.js';
import { type BrowserStorageOptions, resolveBrowserStorageOptions } from './browser-storage-options.js';
import { MemoryBackend } from './memory-backend.js';
import { openRecordStorage, type RecordStorage } from './open-record-storage.js';

/** The `memory` databases of this page that hold vaults, by name: a vault outlives its client, not the page. */
const pageMemory = new Map<string, MemoryBackend>();

function memoryOf(dbName: string): MemoryBackend {
  let backend = pageMemory.get(dbName);
  if (!backend) {
    backend = new MemoryBackend();
    pageMemory.set(dbName, backend);
  }
  return backend;
}

const MAX_NAME = 200;

/**
 * Vaults kept in a page's browser storage (the client configuration's `storage`), so that a vault survives a reload:
 * each vault's envelope, as `vault.toBytes()` gives it (already encrypted under the vault's password with argon2id or
 * PBKDF2 and AES-256-GCM), is a record of the database's `meta` store under `vault/<name>`. With an `encryptionKey`
 * it is sealed again like every record of the database and its key is a keyed hash, so a dump shows neither the
 * envelope's header (feed count, KDF, rotation time) nor the vault's name, and reading it needs both the storage's
 * key and the password. `memory` keeps vaults for the life of the page, shared by the clients of one `dbName`.
 * Each read and write opens the database and closes it again: a vault is written rarely, and an open connection
 * would hold up another tab's upgrade.
 */
export class BrowserVaultStore implements VaultStore {
  readonly keepsEveryChange = true;
  readonly #options: BrowserStorageOptions;

  /** @throws {ConfigurationError} for bad storage options, naming each. */
  constructor(options: BrowserStorageOptions) {
    resolveBrowserStorageOptions(options);
    this.#options = options;
  }

  /**
   * @throws {BrowserStorageError} when no vault is kept under `name`, or the storage cannot be read.
   * @throws {VaultCorruptError} when the record was changed (it does not decrypt under the storage's key).
   */
  async read(name: string): Promise<Uint8Array> {
    return this.#with(name, async ({ backend, sealer, type, dbName }, key) => {
      const stored = await backend.get('meta', key);
      if (stored === undefined) {
        throw new BrowserStorageError(
          type,
          dbName,
          `no vault named ${JSON.stringify(name)} is kept in ${type} database ${dbName}: make it with ` +
            'ThreatClient.createVault(password, apiKeys, {path, config: {storage}}) with this storage and path',
        );
      }
      const text = await sealer.open('meta', key, stored);
      if (text === undefined) {
        throw new VaultCorruptError(
          'record',
          `the vault ${JSON.stringify(name)} kept in ${type} database ${dbName} was changed: it does not decrypt under the storage's encryptionKey`,
          { path: name },
        );
      }
      return utf8Bytes(text);
    });
  }

  /** @throws {BrowserStorageError} when the storage cannot be written (a full quota). */
  async write(name: string, bytes: Uint8Array): Promise<void> {
    await this.#with(name, async ({ backend, sealer }, key) => {
      await backend.put('meta', key, await sealer.seal('meta', key, utf8Text(bytes)));
    });
  }

  /**
   * Keeps a new vault under `name`, as one step: a vault kept there already (by this page or another tab) is never
   * replaced, so that creating a vault cannot lose the keys of another.
   *
   * @throws {ValidationError} when a vault is kept under `name` already.
   */
  async create(name: string, bytes: Uint8Array): Promise<void> {
    await this.#with(name, async ({ backend, sealer, type, dbName }, key) => {
      const sealed = await sealer.seal('meta', key, utf8Text(bytes));
      if ((await backend.addIfAbsent('meta', key, sealed)) !== sealed) {
        throw new ValidationError('ThreatClient.createVault call', [
          {
            path: 'path',
            message: `a vault named ${JSON.stringify(name)} is kept in ${type} database ${dbName} already: open it with ThreatClient.openVault(${JSON.stringify(name)}, password, {config: {storage}}), or give another path`,
          },
        ]);
      }
    });
  }

  async #with<T>(name: string, work: (storage: RecordStorage, key: string) => Promise<T>): Promise<T> {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME) {
      throw new ValidationError('vault name', [
        {
          path: 'path',
          message: `expected 1 to ${MAX_NAME} characters, got ${typeof name === 'string' ? `${name.length}` : `a ${typeof name}`}`,
        },
      ]);
    }
    const storage = await openRecordStorage(this.#options, memoryOf);
    try {
      return await work(storage, await storage.sealer.storedKey('meta', `vault/${name}`));
    } finally {
      // A memory database is the page's: closing it would empty it.
      if (storage.type !== 'memory') await storage.backend.close();
    }
  }
}
