import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  describeWithFerretDB,
  dropDatabases,
  E2E_FERRETDB_URI,
  rawCount,
  uniqueDatabase,
} from '../test-support/ferretdb.js';
import { DocumentStoreStorage } from './document-store-storage.js';

const databases: string[] = [];
const stores: DocumentStoreStorage[] = [];
const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
  await Promise.all(stores.splice(0).map((s) => s.stop()));
});
afterAll(() => dropDatabases(databases));

function database(label: string): string {
  const name = uniqueDatabase(label);
  databases.push(name);
  return name;
}

function store(db: string): DocumentStoreStorage {
  const made = new DocumentStoreStorage({ uri: E2E_FERRETDB_URI, database: db, timeoutMs: 5_000 });
  stores.push(made);
  return made;
}

// A TAXII 2.1 collection of one indicator, which refuses every request once `refusing` is set.
let taxii: Server;
let taxiiUrl = '';
let refusing = false;
const LAST_ADDED = '2026-02-01T00:00:00.000001Z';
beforeAll(async () => {
  taxii = createServer((request, response) => {
    const headers = { 'content-type': 'application/taxii+json;version=2.1' };
    if (refusing) {
      response.writeHead(401, headers).end(JSON.stringify({ title: 'Unauthorized', http_status: '401' }));
      return;
    }
    const object = {
      type: 'indicator',
      spec_version: '2.1',
      id: 'indicator--00000000-0000-4000-8000-000000000001',
      created: '2026-01-01T00:00:00.000Z',
      modified: '2026-01-01T00:00:00.000Z',
      pattern: "[domain-name:value = 'kept-in-mongo-example.com']",
      pattern_type: 'stix',
      valid_from: '2026-01-01T00:00:00Z',
    };
    const after = new URL(request.url ?? '/', 'http://x').searchParams.get('added_after');
    response
      .writeHead(200, { ...headers, 'x-taxii-date-added-first': LAST_ADDED, 'x-taxii-date-added-last': LAST_ADDED })
      .end(JSON.stringify(after === null ? { more: false, objects: [object] } : { more: false }));
  });
  await new Promise<void>((resolve) => taxii.listen(0, '127.0.0.1', resolve));
  taxiiUrl = `http://127.0.0.1:${(taxii.address() as AddressInfo).port}/api1/`;
});
afterAll(() => new Promise<void>((resolve) => taxii.close(() => resolve())));

describeWithFerretDB('list state on the document store', () => {
  it('saves a state larger than a document in chunks, reads it back whole, and keeps one generation', async () => {
    const db = database('liststate');
    const state = { version: 1, big: 'x'.repeat(5 * 1024 * 1024), list: [1, 2, 3] };
    await store(db).listStateStore('list:partner').save(state);
    expect(await rawCount(db, 'listStates', { kind: 'chunk' })).toBe(3);
    // Another instance on the same database reads it.
    expect(await store(db).listStateStore('list:partner').load()).toEqual(state);
    await store(db).listStateStore('list:partner').save({ version: 1, small: true });
    expect(await store(db).listStateStore('list:partner').load()).toEqual({ version: 1, small: true });
    expect(await rawCount(db, 'listStates', { kind: 'chunk' })).toBe(1);
    expect(await store(db).listStateStore('list:other').load()).toBeUndefined();
    expect(() => store(db).listStateStore('has space')).toThrow(/expected a name/);
  });

  it('with integrations.storage, a TAXII list keeps its position and indicators there: a new client lists them at once', async () => {
    const db = database('taxiistate');
    const make = () => {
      const made = new ThreatClient(
        {
          sources: [],
          strategy: 'aggressive',
          lists: [{ name: 'partner', taxii: { url: taxiiUrl, collection: 'c1' } }],
          security: { enforceHttps: false },
          caching: { enabled: false },
          integrations: { storage: { type: 'mongodb', uri: E2E_FERRETDB_URI, database: db } },
        } as ThreatConfig,
        { env: false, logger: silentLogger, loadIntegrationPackage: () => import('../index.js') },
      );
      clients.push(made);
      return made;
    };
    refusing = false;
    const first = make();
    await first.start();
    expect((await first.listStatus())[0]).toMatchObject({
      state: 'ok',
      indicators: 1,
      stateStore: expect.stringMatching(/listStates/),
    });
    await first.stop();
    expect(await rawCount(db, 'listStates', { kind: 'head' })).toBe(1);

    refusing = true;
    const second = make();
    await second.start();
    expect((await second.listStatus())[0]).toMatchObject({ state: 'error', indicators: 1, addedAfter: LAST_ADDED });
    expect((await second.correlate('kept-in-mongo-example.com')).isThreat).toBe(true);
  });
});
