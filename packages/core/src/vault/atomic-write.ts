import { randomBytes, toHex } from '../bytes/host-bytes.js';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { nodeBuiltin } from '../runtime/node-builtin.js';

/** What vault files use of `node:fs/promises` (declared here: the module also compiles for pages). */
interface FileHandle {
  chmod(mode: number): Promise<void>;
  writeFile(data: Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}
interface NodeFs {
  open(path: string, flags: string, mode?: number): Promise<FileHandle>;
  readFile(path: string): Promise<Uint8Array>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { force: boolean }): Promise<void>;
}
/** What vault files use of `node:path`. */
interface NodePath {
  dirname(path: string): string;
  basename(path: string): string;
  join(...parts: string[]): string;
}

/** Whether this runtime has the file system vault files need (Node.js; a page has none). */
export function hasVaultFiles(): boolean {
  return nodeBuiltin('node:fs/promises') !== undefined && nodeBuiltin('node:path') !== undefined;
}

/** The file system modules vault files need, or a {@link RuntimeUnsupportedError} where there are none (a page). */
export function vaultFileSystem(): { fs: NodeFs; path: NodePath } {
  const fs = nodeBuiltin<NodeFs>('node:fs/promises');
  const path = nodeBuiltin<NodePath>('node:path');
  if (!fs || !path) {
    throw new RuntimeUnsupportedError(
      'vault file',
      "vault files need Node.js: in a page, give the vault's client configuration `storage` ({type: " +
        "'indexeddb' | 'localstorage' | 'memory', dbName}) and ThreatClient.createVault and openVault keep it there, " +
        'or keep vault.toBytes() (after await vault.sealed()) yourself and open it with Vault.fromBytes',
    );
  }
  return { fs, path };
}

/**
 * Replaces `path` with `data` so that a reader (or a crash) sees either the old file or the new one, never a mix:
 * write a temporary file in the same directory (same file system, so the rename is atomic), fsync it, rename it
 * over `path`, then fsync the directory so the rename itself survives a power cut. The file gets `mode` (default
 * 0600: owner read/write only) from the moment it exists, whatever the old file's mode was.
 *
 * On failure the temporary file is removed and `path` is left as it was.
 *
 * @throws {RuntimeUnsupportedError} outside Node.js.
 */
export async function writeFileAtomic(path: string, data: Uint8Array, mode = 0o600): Promise<void> {
  const { fs, path: paths } = vaultFileSystem();
  const directory = paths.dirname(path);
  const temporary = paths.join(directory, `.${paths.basename(path)}.${toHex(randomBytes(6))}.tmp`);
  // 'wx': fail rather than follow a symlink or reuse a file someone planted under the temporary name.
  const handle = await fs.open(temporary, 'wx', mode);
  try {
    try {
      // The umask may have narrowed `mode` at creation; set it exactly.
      await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, path);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(fs, directory);
}

async function syncDirectory(fs: NodeFs, directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(directory, 'r');
    await handle.sync();
  } catch (error) {
    // Windows cannot open or fsync a directory (EISDIR, EPERM, EINVAL); there the rename is as durable as it gets.
    const code = (error as { code?: unknown }).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close();
  }
}
