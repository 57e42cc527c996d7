import {
  describeWithFerretDB,
  dropDatabases,
  E2E_FERRETDB_URI,
  recordCommands,
  uniqueDatabase,
} from '@threatlib/test-utils/ferretdb';
import { afterAll, afterEach, expect, it } from 'vitest';
import { DocumentStoreStorage } from './document-store-storage.js';

const databases: string[] = [];
const open: DocumentStoreStorage[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((storage) => storage.stop()));
});
afterAll(() => dropDatabases(databases));

describeWithFerretDB('indicator histories on FerretDB', () => {
  // FerretDB 1.x (SQLite) looks a document up directly only by _id: a filter on any other field reads the whole
  // collection, so one upsert per sighting by `indicator` made a batch cost grow with every history kept (about
  // 100 ms an upsert at a few thousand histories). Keyed by _id, an upsert costs the same however many there are.
  it('a history is kept under its indicator as _id: sightings and lookups address it by _id', async () => {
    const database = uniqueDatabase('history_id');
    databases.push(database);
    const storage = new DocumentStoreStorage(
      { uri: E2E_FERRETDB_URI, database },
      { driverOptions: { monitorCommands: true } },
    );
    open.push(storage);
    await storage.start();
    const commands = recordCommands(storage.client);
    const seenAt = new Date('2026-03-01T12:00:00Z');
    const sighting = { type: 'domain', seenAt, verdict: 'malicious', confidence: 90, riskScore: 9 };
    await storage.recordSightings([
      { ...sighting, indicator: 'a.example' },
      { ...sighting, indicator: 'b.example' },
    ]);
    await storage.recordSightings([{ ...sighting, indicator: 'a.example', seenAt: new Date(seenAt.getTime() + 1) }]);
    expect(await storage.indicatorHistory('a.example')).toMatchObject({ indicator: 'a.example', timesSeen: 2 });

    const updates = commands.filter((c) => c.commandName === 'update');
    const filters = updates.flatMap((c) => (c.command.updates as Array<{ q: unknown }>).map((u) => u.q));
    expect(filters).toEqual([{ _id: 'a.example' }, { _id: 'b.example' }, { _id: 'a.example' }]);
    const lookups = commands.filter((c) => c.commandName === 'find').map((c) => c.command.filter);
    expect(lookups).toEqual([{ _id: 'a.example' }]);
    expect(await storage.query('indicators', { indicator: 'b.example' })).toEqual([
      expect.objectContaining({ id: 'b.example', indicator: 'b.example', timesSeen: 1 }),
    ]);
  });

  // FerretDB 1.24 (SQLite) never answers one update command that modifies 100 or more existing documents (the
  // connection hangs until it is cut), so a batch re-seeing the indicators of a previous one must go in smaller
  // commands. Found by bench/storage; a short timeout here, so that the failure is a failure, not a stuck run.
  it('a batch that updates 150 existing histories completes, sent 50 updates a command at most', async () => {
    const database = uniqueDatabase('history_many');
    databases.push(database);
    const storage = new DocumentStoreStorage(
      { uri: E2E_FERRETDB_URI, database, timeoutMs: 5_000 },
      { driverOptions: { monitorCommands: true, socketTimeoutMS: 8_000 } },
    );
    open.push(storage);
    const commands = recordCommands(storage.client);
    const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 12, minute));
    const batch = (minute: number) =>
      Array.from({ length: 150 }, (_, i) => ({
        indicator: `host-${i}.example`,
        type: 'domain',
        seenAt: at(minute),
        verdict: 'clean',
        confidence: minute,
        riskScore: 1,
      }));
    await storage.recordSightings(batch(1));
    await storage.recordSightings(batch(2));
    expect(await storage.indicatorHistory('host-149.example')).toMatchObject({
      timesSeen: 2,
      firstSeen: at(1),
      lastSeen: at(2),
      lastConfidence: 2,
    });
    const sizes = commands
      .filter((c) => c.commandName === 'update')
      .map((c) => (c.command.updates as unknown[]).length);
    expect(sizes).toEqual([50, 50, 50, 50, 50, 50]);
  }, 20_000);
});
