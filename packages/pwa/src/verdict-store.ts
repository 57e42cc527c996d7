// The recent verdicts kept for offline use (the `offlineData` option): one IndexedDB record per indicator, the
// newest `maxEntries` kept. Written by the service worker from each scan's answer, read by the worker (to answer a
// scan made offline) and by the page (to list them). Verdicts are kept in the origin's storage in clear, like the
// browser's HTTP cache would; signing out deletes them.
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';

/**
 * A verdict as the server's scan routes answer it (`ScanResponse`), kept whole; the store reads its `indicator` only,
 * and the page reads the rest as its own type (`storedVerdicts<ScanResponse>()`).
 */
export interface ScanResult {
  /** The indicator as the server wrote it (refanged). */
  indicator: string;
}

/** One kept verdict. */
export interface StoredVerdict<Result extends ScanResult = ScanResult> {
  /** The indicator as the server wrote it (refanged). */
  indicator: string;
  /** The texts it was asked as (`hxxp://evil[.]example`), for finding it again. */
  inputs: string[];
  /** When it was kept, ms since the epoch. */
  storedAt: number;
  result: Result;
}

interface VerdictSchema extends DBSchema {
  verdicts: { key: string; value: StoredVerdict; indexes: { input: string; storedAt: number } };
}

const DB_NAME = 'threatlib-pwa';
const DB_VERSION = 1;

let opened: Promise<IDBPDatabase<VerdictSchema>> | undefined;

function db(): Promise<IDBPDatabase<VerdictSchema>> {
  opened ??= openDB<VerdictSchema>(DB_NAME, DB_VERSION, {
    upgrade(database) {
      const store = database.createObjectStore('verdicts', { keyPath: 'indicator' });
      store.createIndex('input', 'inputs', { multiEntry: true });
      store.createIndex('storedAt', 'storedAt');
    },
  });
  return opened;
}

/** Keeps each `[input, result]`, then drops the oldest beyond `maxEntries`. */
export async function keepVerdicts(
  answers: ReadonlyArray<readonly [string, ScanResult]>,
  maxEntries: number,
  now = Date.now(),
): Promise<void> {
  const database = await db();
  const tx = database.transaction('verdicts', 'readwrite');
  for (const [input, result] of answers) {
    const known = await tx.store.get(result.indicator);
    const inputs = new Set([...(known?.inputs ?? []), input, result.indicator]);
    await tx.store.put({ indicator: result.indicator, inputs: [...inputs].slice(-10), storedAt: now, result });
  }
  const count = await tx.store.count();
  if (count > maxEntries) {
    let cursor = await tx.store.index('storedAt').openCursor();
    for (let excess = count - maxEntries; cursor && excess > 0; excess -= 1) {
      await cursor.delete();
      cursor = await cursor.continue();
    }
  }
  await tx.done;
}

/** The kept verdict of `input` (as asked, or as the server wrote it), if any. */
export async function storedVerdict(input: string): Promise<StoredVerdict | undefined> {
  const database = await db();
  return (await database.get('verdicts', input)) ?? (await database.getFromIndex('verdicts', 'input', input));
}

/** The kept verdicts, newest first (`Result`: the shape the page reads them as, e.g. its `ScanResponse` type). */
export async function storedVerdicts<Result extends ScanResult = ScanResult>(
  limit = 200,
): Promise<Array<StoredVerdict<Result>>> {
  const database = await db();
  const out: Array<StoredVerdict<Result>> = [];
  let cursor = await database.transaction('verdicts').store.index('storedAt').openCursor(null, 'prev');
  while (cursor && out.length < limit) {
    out.push(cursor.value as StoredVerdict<Result>);
    cursor = await cursor.continue();
  }
  return out;
}

/** Deletes every kept verdict (sign-out). */
export async function forgetVerdicts(): Promise<void> {
  await (await db()).clear('verdicts');
}
