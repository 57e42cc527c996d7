import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `data` so that a reader (or a crash) sees either the old file or the new one, never a mix:
 * write a temporary file in the same directory (same file system, so the rename is atomic), fsync it, rename it
 * over `path`, then fsync the directory so the rename itself survives a power cut. The file gets `mode` (default
 * 0600: owner read/write only) from the moment it exists, whatever the old file's mode was.
 *
 * On failure the temporary file is removed and `path` is left as it was.
 */
export async function writeFileAtomic(path: string, data: Uint8Array, mode = 0o600): Promise<void> {
  const directory = dirname(path);
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': fail rather than follow a symlink or reuse a file someone planted under the temporary name.
  const handle = await open(temporary, 'wx', mode);
  try {
    try {
      // The umask may have narrowed `mode` at creation; set it exactly.
      await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(directory);
}

async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch (error) {
    // Windows cannot open or fsync a directory (EISDIR, EPERM, EINVAL); there the rename is as durable as it gets.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close();
  }
}
