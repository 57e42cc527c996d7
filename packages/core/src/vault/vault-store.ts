import { vaultFileSystem, writeFileAtomic } from './atomic-write.js';

/**
 * Where a vault's envelope is kept between runs, by name: files under Node.js (the name is a path), or a page's
 * browser storage (`BrowserVaultStore`, when the vault's client configuration has `storage`). What is kept is the
 * envelope as `vault.toBytes()` gives it, already encrypted under the vault's password.
 */
export interface VaultStore {
  /**
   * Whether every change is kept at once (after the re-encryption that follows `set`, `delete` and rotation), as
   * browser storage does; files are written by `save()` and rotation only.
   */
  readonly keepsEveryChange: boolean;
  /** The envelope kept under `name`. */
  read(name: string): Promise<Uint8Array>;
  /** Keeps `bytes` under `name`, replacing what was there, so that a reader sees the old envelope or the new one. */
  write(name: string, bytes: Uint8Array): Promise<void>;
}

/**
 * Vault files (Node.js): read as they are, written atomically with mode 0600.
 *
 * @throws {RuntimeUnsupportedError} outside Node.js, saying what a page does instead.
 */
export const vaultFiles: VaultStore = {
  keepsEveryChange: false,
  read: (path) => vaultFileSystem().fs.readFile(path),
  write: (path, bytes) => writeFileAtomic(path, bytes),
};
