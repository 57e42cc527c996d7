import {
  describeWithFerretDB,
  dropDatabases,
  E2E_FERRETDB_URI,
  rawCount,
  uniqueDatabase,
} from '@threatlib/test-utils/ferretdb';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, expect, it } from 'vitest';
import { StorageError } from '../errors/storage-error.js';
import { DocumentStoreStorage } from './document-store-storage.js';
import type { WebhookOutboxEntry } from './webhook-outbox.js';

const databases: string[] = [];
const stores: DocumentStoreStorage[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.stop()));
});
afterAll(async () => {
  await dropDatabases(databases);
});

function store(database: string): DocumentStoreStorage {
  const made = new DocumentStoreStorage({ uri: E2E_FERRETDB_URI, database, timeoutMs: 5_000 });
  stores.push(made);
  return made;
}

function entry(n: number, extra: Partial<WebhookOutboxEntry> = {}): WebhookOutboxEntry {
  return {
    key: `soc\nmsg_${n}`,
    messageId: `msg_${n}`,
    endpoint: 'soc',
    event: 'high-confidence-threat',
    body: JSON.stringify({ type: 'high-confidence-threat', timestamp: '2026-01-01T00:00:00.000Z', data: { n } }),
    createdAt: 1_767_225_600_000 + n,
    attempts: 0,
    nextAttemptAt: 1_767_225_600_000 + n,
    ...extra,
  };
}

describeWithFerretDB('the webhooks outbox on the document store', () => {
  it('keeps each delivery as one document, replaced by its key, listed again by a new store after a restart', async () => {
    const database = uniqueDatabase('outbox');
    databases.push(database);
    const first = store(database).webhookOutbox('webhooks');
    expect(await first.open()).toEqual([]);
    await first.put(entry(1));
    await first.put(entry(2));
    // A failed attempt writes the delivery again: its count, next time and error replace the stored ones.
    await first.put(
      entry(1, { attempts: 2, nextAttemptAt: 1_767_225_700_000, lastError: 'the receiver answered 503' }),
    );
    expect(await rawCount(database, 'webhookOutbox')).toBe(2);
    await first.remove(entry(2).key);
    await first.remove('soc\nmsg_never');
    await first.close();

    const again = store(database).webhookOutbox('webhooks');
    expect(await again.open()).toEqual([
      entry(1, { attempts: 2, nextAttemptAt: 1_767_225_700_000, lastError: 'the receiver answered 503' }),
    ]);
    // Another outbox name in the same database has its own deliveries.
    expect(await store(database).webhookOutbox('other').open()).toEqual([]);
  });

  it('leaves documents that are not deliveries alone, and refuses to store an entry that is not one', async () => {
    const database = uniqueDatabase('outbox_bad');
    databases.push(database);
    const raw = new MongoClient(E2E_FERRETDB_URI);
    try {
      await raw
        .db(database)
        .collection<{ _id: string; outbox: string }>('webhookOutbox')
        .insertOne({ _id: 'webhooks\nbroken', outbox: 'webhooks', key: 42 } as never);
    } finally {
      await raw.close();
    }
    const outbox = store(database).webhookOutbox('webhooks');
    expect(await outbox.open()).toEqual([]);
    const refused = await outbox.put({ ...entry(3), attempts: 'two' } as never).catch((error: unknown) => error);
    expect(StorageError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain('the entry is not a delivery');
    expect(() => store(database).webhookOutbox('a name with spaces')).toThrow(/expected a name/);
  });

  it("judges an entry as the webhooks' file outbox does: an attempt count that is not whole is no delivery", async () => {
    const database = uniqueDatabase('outbox_whole');
    databases.push(database);
    const outbox = store(database).webhookOutbox('webhooks');
    await outbox.open();
    const refused = await outbox.put(entry(4, { attempts: 1.5 })).catch((error: unknown) => error);
    expect(StorageError.isInstance(refused)).toBe(true);
    await outbox.put(entry(5, { attempts: 2, lastError: 'the receiver answered 503' }));
    expect((await outbox.open()).map((waiting) => waiting.key)).toEqual(['soc\nmsg_5']);
  });

  it('refuses writes once its store has stopped, rather than connecting again', async () => {
    const database = uniqueDatabase('outbox_stop');
    databases.push(database);
    const storage = store(database);
    const outbox = storage.webhookOutbox('webhooks');
    await outbox.open();
    await storage.stop();
    const refused = await outbox.put(entry(4)).catch((error: unknown) => error);
    expect(StorageError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain('stopped');
    expect(await rawCount(database, 'webhookOutbox')).toBe(0);
  });
});
