import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CommandStartedEvent, MongoClient } from 'mongodb';
import { beforeAll, describe, it } from 'vitest';

/** The FerretDB that `bash e2e/services up ferretdb` starts (e2e/services.d/ferretdb.sh): SQLite, no auth. */
export const E2E_FERRETDB_URI = 'mongodb://127.0.0.1:27018';
const PORT = 27018;

const services = fileURLToPath(new URL('../../../../e2e/services', import.meta.url));
const run = promisify(execFile);

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

const reachable = await portOpen(PORT);

/**
 * `describe` for tests that need the real FerretDB. When it is unreachable they are skipped, with the reason as the
 * skipped test's name, if `THREATLIB_E2E` is unset; they fail, loudly, if it is set.
 */
export function describeWithFerretDB(title: string, body: () => void): void {
  describe(title, () => {
    if (!reachable && !process.env.THREATLIB_E2E) {
      it.skip(
        `needs FerretDB at 127.0.0.1:${PORT} (start it with: bash e2e/services up ferretdb; THREATLIB_E2E=1 makes this fail instead)`,
      );
      return;
    }
    beforeAll(() => {
      if (!reachable) {
        throw new Error(
          `THREATLIB_E2E is set but FerretDB at 127.0.0.1:${PORT} does not answer; run: bash e2e/services up ferretdb`,
        );
      }
    });
    body();
  });
}

let databases = 0;

/** A database name no other test, run or process uses (at most 63 characters). */
export function uniqueDatabase(label: string): string {
  databases += 1;
  return `tl_${label.slice(0, 20)}_${process.pid}_${Date.now().toString(36)}_${databases}`;
}

/** Drops test databases; one that is not there is no error. */
export async function dropDatabases(names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const client = new MongoClient(E2E_FERRETDB_URI, { serverSelectionTimeoutMS: 10_000 });
  try {
    for (const name of names)
      await client
        .db(name)
        .dropDatabase()
        .catch(() => undefined);
  } finally {
    await client.close();
  }
}

/** Counts the documents of a collection on the server, expired ones included: what the store holds, not what it returns. */
export async function rawCount(
  database: string,
  collection: string,
  filter: Record<string, unknown> = {},
): Promise<number> {
  const client = new MongoClient(E2E_FERRETDB_URI, { serverSelectionTimeoutMS: 10_000 });
  try {
    return await client.db(database).collection(collection).countDocuments(filter);
  } finally {
    await client.close();
  }
}

/** The commands a driver client sends, as its command monitor reports them (`monitorCommands: true`). */
export function recordCommands(client: MongoClient): CommandStartedEvent[] {
  const started: CommandStartedEvent[] = [];
  client.on('commandStarted', (event) => started.push(event));
  return started;
}

/** Stops FerretDB (SIGTERM, then SIGKILL after 15 s) with the project's service script. */
export async function stopFerretDB(): Promise<void> {
  await run('bash', [services, 'down', 'ferretdb'], { timeout: 60_000 });
}

/** Starts FerretDB again with the project's service script and waits until it answers a ping. */
export async function startFerretDB(): Promise<void> {
  await run('bash', [services, 'up', 'ferretdb'], { timeout: 120_000 });
}

/** Resolves once `condition()` holds (checked every 20 ms); rejects after `timeout` ms naming `what`. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeout = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
