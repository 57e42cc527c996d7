import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { eventually } from '@threatlib/test-utils';
import { describeWithFerretDB, dropDatabases, E2E_FERRETDB_URI, uniqueDatabase } from '@threatlib/test-utils/ferretdb';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { StorageIntegration } from './storage-integration.js';

const dir = mkdtempSync(join(tmpdir(), 'threatlib-storage-'));
const listFile = join(dir, 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n203.0.113.66\n');
const EVIL = 'evil.threatlib-test.net';

const databases: string[] = [];
const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
});
afterAll(() => dropDatabases(databases));

/** A client whose blocklist concludes the threats (no feed asked), with `integrations.storage` on FerretDB. */
function client(database: string, storage: Record<string, unknown> = {}): ThreatClient {
  const made = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'blocklist', file: listFile }],
      security: { enforceHttps: false },
      integrations: { storage: { type: 'mongodb', uri: E2E_FERRETDB_URI, database, ...storage } },
    } as ThreatConfig,
    // The package under test, from source: what `client.start()` imports by name once the package is installed.
    { env: false, logger: silentLogger, loadIntegrationPackage: () => import('../index.js') },
  );
  clients.push(made);
  return made;
}

function database(label: string): string {
  const name = uniqueDatabase(label);
  databases.push(name);
  return name;
}

async function documents(db: string, collection: string): Promise<Array<Record<string, unknown>>> {
  const mongo = new MongoClient(E2E_FERRETDB_URI);
  try {
    return await mongo
      .db(db)
      .collection(collection)
      .find({}, { projection: { _id: 0 } })
      .toArray();
  } finally {
    await mongo.close();
  }
}

describeWithFerretDB('integrations.storage {type: "mongodb"} on FerretDB', () => {
  it('keeps every correlation in threats and one history per indicator, from which enrichIndicator answers', async () => {
    const db = database('integration');
    const c = client(db);
    await c.start();
    const storage = c.integration('storage') as StorageIntegration;

    await c.correlate(EVIL);
    await c.correlate('clean.threatlib-test.net');
    await c.scout(EVIL);
    await storage.flush();

    const threats = await documents(db, 'threats');
    expect(threats.map((t) => [t.indicator, (t.results as { verdict: string }).verdict])).toEqual([
      [EVIL, 'malicious'],
      ['clean.threatlib-test.net', 'unknown'],
      [EVIL, 'malicious'],
    ]);
    expect(threats[0]).toMatchObject({ ttl: 2_592_000, scanDate: expect.any(Date), expiresAt: expect.any(Date) });

    const found = await (storage.storage as unknown as { query: (k: string, f: object) => Promise<unknown[]> }).query(
      'threats',
      { 'results.confidence': { $gte: 80 } },
    );
    expect(found).toHaveLength(2);

    const enriched = await storage.enrichIndicator({ type: 'domain', value: 'EVIL.threatlib-test.net' });
    expect(enriched).toEqual({
      indicator: EVIL,
      firstSeen: (threats[0]?.scanDate as Date | undefined)?.toISOString(),
      lastSeen: (threats[2]?.scanDate as Date | undefined)?.toISOString(),
      associatedEvents: 2,
      riskScore: expect.any(Number),
    });
    expect(await storage.enrichIndicator({ type: 'domain', value: 'never.threatlib-test.net' })).toBeUndefined();
    expect(storage.stats()).toMatchObject({ written: 3, buffered: 0, dropped: 0 });
    expect(await storage.health()).toMatchObject({ healthy: true, expiry: 'sweeper' });
  });

  it('with indicatorHistory: false keeps the threat records and no history', async () => {
    const db = database('nohistory');
    const c = client(db, { indicatorHistory: false });
    await c.start();
    const storage = c.integration('storage') as StorageIntegration;
    await c.correlate(EVIL);
    await c.correlate(EVIL);
    await storage.flush();
    expect((await documents(db, 'threats')).map((t) => t.indicator)).toEqual([EVIL, EVIL]);
    expect(await documents(db, 'indicators')).toEqual([]);
    expect(await storage.enrichIndicator({ type: 'domain', value: EVIL })).toBeUndefined();
    expect(storage.stats()).toMatchObject({ written: 2, dropped: 0 });
  });

  it('is the client’s alert store: alerts and their deliveries are there after a restart', async () => {
    const db = database('alerts');
    const first = client(db);
    await first.start();
    await first.scout(EVIL);
    await first.alerts.settled();
    const added = await first.alerts.add({ title: 'by hand', severity: 'critical' });
    const before = (await first.alerts.list()).items;
    expect(before.map((a) => a.title)).toEqual(expect.arrayContaining(['by hand', expect.stringContaining(EVIL)]));
    expect(first.alerts.store).toBe((first.integration('storage') as StorageIntegration).alertStore);
    await first.stop();

    const second = client(db);
    await second.start();
    expect((await second.alerts.list()).items).toEqual(before);
    expect(await second.alerts.get(added.id)).toEqual(added);
  });

  it('a scan does not wait for the server: with FerretDB unreachable the correlations are held, not lost', async () => {
    const db = database('held');
    const c = client(db, { batching: { maxDelayMs: 1, retryDelayMs: 50, maxRetryDelayMs: 50 }, timeoutMs: 300 });
    await c.start();
    const storage = c.integration('storage') as StorageIntegration;
    // Cut the integration off from the server the way a network fault would: its pool closes under it.
    await (storage.storage as unknown as { client: MongoClient }).client.close(true);
    for (let i = 0; i < 20; i++) await c.correlate(`host${i}.threatlib-test.net`);
    await eventually(() => storage.stats().failedWrites >= 2, 'the write to fail and be retried');
    expect(storage.stats()).toMatchObject({ written: 0, buffered: 20, dropped: 0 });
  });

  it('refuses invalid options, naming each under integrations.storage', async () => {
    const c = client('x', { database: 'a/b', batching: { maxBatch: 0 }, ttl: -1, indicatorHistory: 'no' });
    const error = await c.start().catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).issues.map((i) => i.path)).toEqual([
      'integrations.storage.ttl',
      'integrations.storage.indicatorHistory',
      'integrations.storage.batching.maxBatch',
      'integrations.storage.database',
    ]);
  });
});
