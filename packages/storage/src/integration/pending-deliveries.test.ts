import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Alert, MemoryAlertStore, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import { eventually } from '@threatlib/test-utils';
import { describeWithFerretDB, dropDatabases, E2E_FERRETDB_URI, uniqueDatabase } from '@threatlib/test-utils/ferretdb';
import { afterAll, afterEach, expect, it } from 'vitest';
import { DocumentStoreStorage } from '../document-store/document-store-storage.js';
import type { StorageIntegration } from './storage-integration.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-pending-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
/** No feed is asked: a local list is all the client needs to run. */
const offline = { sources: [], lists: [{ name: 'blocklist', file: listFile }], security: { enforceHttps: false } };

const databases: string[] = [];
const clients: ThreatClient[] = [];
const stores: DocumentStoreStorage[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
  await Promise.all(stores.splice(0).map((s) => s.stop()));
});
afterAll(() => dropDatabases(databases));

/** A SIEM that refuses while `down` is true, then takes every alert; one class per test, shared by its clients. */
function siem() {
  return class Siem implements Integration {
    static down = true;
    static calls = 0;
    static received: Alert[] = [];
    readonly retries = 5;
    async sendAlert(alert: Alert) {
      Siem.calls += 1;
      if (Siem.down) throw new Error('503 Service Unavailable');
      Siem.received.push(alert);
      return { ticket: `T-${Siem.received.length}` };
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

/**
 * A client whose alert store is the storage integration on FerretDB, with `Siem` registered; the wait between
 * delivery attempts is a minute, so a stop always finds a failed delivery waiting for its retry.
 */
function client(database: string, Siem: ReturnType<typeof siem>): ThreatClient {
  const made = new ThreatClient(
    {
      ...offline,
      performance: { retryDelay: 60_000 },
      integrations: { storage: { type: 'mongodb', uri: E2E_FERRETDB_URI, database } },
    } as ThreatConfig,
    { env: false, logger: silentLogger, loadIntegrationPackage: () => import('../index.js') },
  );
  made.registerIntegration('siem', Siem);
  clients.push(made);
  return made;
}

function database(label: string): string {
  const name = uniqueDatabase(label);
  databases.push(name);
  return name;
}

/** The alert as a separate reader of the database sees it (not the client's view). */
async function storedAlert(db: string, id: string): Promise<Alert | undefined> {
  const store = new DocumentStoreStorage({ uri: E2E_FERRETDB_URI, database: db });
  stores.push(store);
  return store.alerts.get(id);
}

describeWithFerretDB('pending deliveries survive a restart, with the document store as the alert store', () => {
  it('a client stopped while a delivery waits for its retry: a new client on the same database delivers it', async () => {
    const db = database('resume');
    const Siem = siem();
    const first = client(db, Siem);
    await first.start();
    expect(first.alerts.store).toBe((first.integration('storage') as StorageIntegration).alertStore);
    const alert = await first.alerts.add({ title: 'C2 beacon', severity: 'high' });
    await eventually(
      async () => (await storedAlert(db, alert.id))?.deliveries[0]?.attempts === 1,
      'the first attempt to fail and be recorded',
    );
    await first.stop();

    const left = await storedAlert(db, alert.id);
    expect(left?.deliveries).toEqual([
      expect.objectContaining({
        integration: 'siem',
        status: 'pending',
        attempts: 1,
        lastError: expect.stringMatching(/^503 Service Unavailable; the client stopped before the delivery ended/),
      }),
    ]);
    expect(Siem.received).toEqual([]);

    Siem.down = false;
    const second = client(db, Siem);
    await second.start();
    await second.alerts.settled();
    expect(Siem.received.map((a) => a.id)).toEqual([alert.id]);
    expect(Siem.calls).toBe(2);
    const delivered = {
      integration: 'siem',
      status: 'delivered',
      attempts: 2,
      lastAttemptAt: expect.any(String),
      result: { ticket: 'T-1' },
    };
    expect((await second.alerts.get(alert.id))?.deliveries).toEqual([delivered]);
    expect((await storedAlert(db, alert.id))?.deliveries).toEqual([delivered]);

    // Delivered is final: a third start sends nothing.
    await second.stop();
    const third = client(db, Siem);
    await third.start();
    await third.alerts.settled();
    expect(Siem.calls).toBe(2);
  });

  it('a delivery a process left in flight when it died (stored pending) is delivered by the next client', async () => {
    const db = database('crashed');
    // What a process that died mid-delivery leaves behind: the alert stored, its delivery pending.
    const crashed = new DocumentStoreStorage({ uri: E2E_FERRETDB_URI, database: db });
    stores.push(crashed);
    const alert = await crashed.alerts.add({
      title: 'left in flight',
      severity: 'critical',
      deliveries: [{ integration: 'siem', status: 'pending', attempts: 1, lastAttemptAt: '2026-03-01T12:00:00.000Z' }],
    });
    const done = await crashed.alerts.add({
      title: 'already delivered',
      severity: 'critical',
      deliveries: [{ integration: 'siem', status: 'delivered', attempts: 1 }],
    });
    await crashed.stop();

    const Siem = siem();
    Siem.down = false;
    const next = client(db, Siem);
    await next.start();
    await next.alerts.settled();
    expect(Siem.received.map((a) => a.title)).toEqual(['left in flight']);
    expect((await next.alerts.get(alert.id))?.deliveries).toEqual([
      expect.objectContaining({ integration: 'siem', status: 'delivered', attempts: 2 }),
    ]);
    expect((await next.alerts.get(done.id))?.deliveries).toEqual([
      { integration: 'siem', status: 'delivered', attempts: 1 },
    ]);
  });

  it('alerts kept in memory before start() with a pending delivery are moved to the database and delivered', async () => {
    const db = database('moved');
    const Siem = siem();
    Siem.down = false;
    const memory = new MemoryAlertStore();
    const before = await memory.add({
      title: 'raised before start',
      severity: 'medium',
      deliveries: [{ integration: 'siem', status: 'pending', attempts: 0 }],
    });
    const c = new ThreatClient(
      {
        ...offline,
        integrations: { storage: { type: 'mongodb', uri: E2E_FERRETDB_URI, database: db } },
      } as ThreatConfig,
      { env: false, logger: silentLogger, alertStore: memory, loadIntegrationPackage: () => import('../index.js') },
    );
    c.registerIntegration('siem', Siem);
    clients.push(c);
    await c.start();
    await c.alerts.settled();
    expect(Siem.received.map((a) => a.id)).toEqual([before.id]);
    expect((await storedAlert(db, before.id))?.deliveries).toEqual([
      expect.objectContaining({ integration: 'siem', status: 'delivered', attempts: 1 }),
    ]);
  });
});
