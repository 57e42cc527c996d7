import { describeWithServices, probeService } from '@threatlib/core/testing';
import { type CommandStartedEvent, MongoClient } from 'mongodb';

/** The FerretDB that `bash e2e/services up ferretdb` starts (e2e/services.d/ferretdb.sh): SQLite, no auth. */
export const E2E_FERRETDB_URI = 'mongodb://127.0.0.1:27018';
const PORT = 27018;

const ferretdb = await probeService({ name: 'ferretdb', port: PORT });

/**
 * `describe` for tests that need the real FerretDB. When it is unreachable they are skipped, with the reason as the
 * skipped test's name, if `THREATLIB_E2E` is unset; they fail, loudly, if it is set.
 */
export function describeWithFerretDB(title: string, body: () => void): void {
  describeWithServices([ferretdb], title, body);
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
  uri = E2E_FERRETDB_URI,
): Promise<number> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
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

export { PrivateFerretDB } from './private-ferretdb.js';
