import { open, readFile, rm } from 'node:fs/promises';

/** Lock files held by this process: a second outbox on the same directory in one process is refused too. */
const held = new Set<string>();

/**
 * Takes the lock file at `path` for this process: created exclusively with this process's id in it. A lock left by
 * a process that no longer runs (killed, crashed) is taken over; one held by a live process, or by another outbox
 * of this process, is refused.
 *
 * @throws {Error} naming the process holding the lock.
 */
export async function acquireLock(path: string): Promise<() => Promise<void>> {
  if (held.has(path)) throw new Error(`${path} is held by another outbox of this process`);
  held.add(path);
  try {
    await takeLock(path);
  } catch (error) {
    held.delete(path);
    throw error;
  }
  return async () => {
    held.delete(path);
    await rm(path, { force: true });
  };
}

async function takeLock(path: string): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(String(process.pid));
        await handle.sync();
      } finally {
        await handle.close();
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt((await readFile(path, 'utf8').catch(() => '')).trim(), 10);
    // This process's own id in the file: left by an earlier run with the same id (a container's pid 1), since a
    // live holder in this process would be in `held`.
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
      throw new Error(`${path} is held by process ${owner}; one outbox directory serves one manager`);
    }
    await rm(path, { force: true });
  }
  throw new Error(`${path} could not be taken: other processes keep creating it`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
