import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { eventually } from '@threatlib/test-utils';
import { describeWithFerretDB, PrivateFerretDB, rawCount, uniqueDatabase } from '@threatlib/test-utils/ferretdb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StorageIntegration } from '../integration/storage-integration.js';
import { DocumentStoreStorage } from './document-store-storage.js';

// Each case stops and starts a FerretDB of this file's own (the e2e service's binary, another port, its own data):
// stopping the shared server would pull it from under the other test files running at the same time.
describeWithFerretDB('FerretDB stopped mid-run and started again', () => {
  let server: PrivateFerretDB;
  beforeAll(async () => {
    server = await PrivateFerretDB.start();
  }, 60_000);
  afterAll(() => server?.dispose());

  it('DocumentStoreStorage loses no acknowledged record: every record whose store() resolved is there after', async () => {
    const database = uniqueDatabase('restart');
    const storage = new DocumentStoreStorage({
      uri: server.uri,
      database,
      collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
      timeoutMs: 1_000,
      // A command the stopping server took and never answered fails, rather than hold the writer for ever.
      operationTimeoutMs: 5_000,
    });
    const acknowledged: string[] = [];
    let refused = 0;
    let phase = 'before' as 'before' | 'down' | 'after';
    let acknowledgedAfter = 0;
    const writer = (async () => {
      for (let i = 0; acknowledgedAfter < 100; i++) {
        try {
          const { id } = await storage.store('threats', {
            indicator: `h${i}.example`,
            results: { confidence: i % 100 },
            scanDate: new Date(),
            ttl: 86_400,
          });
          acknowledged.push(id);
          if (phase === 'after') acknowledgedAfter += 1;
        } catch (error) {
          expect(error).toMatchObject({ name: 'StorageError', isRetryable: true });
          refused += 1;
        }
      }
    })();
    try {
      await eventually(() => acknowledged.length >= 100, '100 records stored before the stop');
      await server.stop();
      phase = 'down';
      const countAtStop = acknowledged.length;
      await eventually(() => refused >= 1, 'a store() refused while the server is down', 30_000);
      await server.start();
      phase = 'after';
      await writer;
      console.log(
        `restart: ${countAtStop} acknowledged before the stop, ${refused} refused while down, ${acknowledged.length} in all`,
      );
      expect(await rawCount(database, 'threats', { _id: { $in: acknowledged } }, server.uri)).toBe(acknowledged.length);
      expect(new Set(acknowledged).size).toBe(acknowledged.length);
    } finally {
      phase = 'after';
      acknowledgedAfter = 100;
      await writer.catch(() => undefined);
      await storage.stop();
    }
  }, 120_000);

  it('the storage integration holds correlations while the server is down and writes every one once it is back', async () => {
    const database = uniqueDatabase('restart-int');
    const dir = mkdtempSync(join(tmpdir(), 'threatlib-storage-restart-'));
    const listFile = join(dir, 'blocklist.txt');
    writeFileSync(listFile, Array.from({ length: 600 }, (_, i) => `bad${i}.threatlib-test.net`).join('\n'));
    const client = new ThreatClient(
      {
        sources: [],
        strategy: 'aggressive',
        lists: [{ name: 'blocklist', file: listFile }],
        security: { enforceHttps: false },
        alerting: { enabled: false },
        integrations: {
          storage: {
            type: 'mongodb',
            uri: server.uri,
            database,
            timeoutMs: 1_000,
            operationTimeoutMs: 5_000,
            batching: { maxDelayMs: 20, maxBatch: 50, retryDelayMs: 100, maxRetryDelayMs: 500 },
          },
        },
      } as ThreatConfig,
      { env: false, logger: silentLogger, loadIntegrationPackage: () => import('../index.js') },
    );
    await client.start();
    const storage = client.integration('storage') as StorageIntegration;
    try {
      for (let i = 0; i < 200; i++) await client.correlate(`bad${i}.threatlib-test.net`);
      await storage.flush();
      const countBefore = await rawCount(database, 'threats', {}, server.uri);
      expect(countBefore).toBe(200);

      await server.stop();
      // Scans go on while the server is down: each returns, its correlation held.
      for (let i = 200; i < 600; i++) await client.correlate(`bad${i}.threatlib-test.net`);
      await eventually(() => storage.stats().failedWrites >= 1, 'a write to fail while the server is down', 30_000);
      expect(storage.stats().buffered).toBeGreaterThan(0);
      await server.start();

      await storage.flush();
      expect(storage.stats()).toMatchObject({ written: 600, buffered: 0, dropped: 0 });
      expect(await rawCount(database, 'threats', {}, server.uri)).toBe(600);
      expect(await rawCount(database, 'indicators', {}, server.uri)).toBe(600);
    } finally {
      await client.stop();
    }
  }, 120_000);
});
