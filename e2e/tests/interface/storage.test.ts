// The document store of ../shared/INTERFACE.md (sections 2.5 and 4.2): `DocumentStoreStorage` from
// `@threatlib/storage` on a real MongoDB wire-protocol server (FerretDB, an e2e service), with the documented stored
// threat record `{indicator, results, scanDate, ttl}` and the documented query, and a client constructed with
// `integrations: {storage: {type, uri, database}}` that keeps its correlations once started. Database names are unique
// per run; the server address is the e2e service's.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreatClient } from '@threatlib/core';
import { DocumentStoreStorage, type StorageIntegration } from '@threatlib/storage';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWith, type EmulatedFeeds, servicePort, startEmulatedFeeds, uniqueName } from './support.js';

const MONGODB_URI = `mongodb://127.0.0.1:${servicePort('ferretdb')}`;

// The user's own blocklist names the threat, so its confidence is certain whatever the emulated feeds answer.
const listDir = mkdtempSync(join(tmpdir(), 'threatlib-e2e-storage-'));
const blocklist = join(listDir, 'blocklist.txt');
writeFileSync(blocklist, 'malicious-site.com\n');

let feeds: EmulatedFeeds;
const running: { stop(): Promise<void> }[] = [];
const databases: string[] = [];

/** A database name of this run (MongoDB allows no "." in one). */
function database(label: string): string {
  const name = uniqueName(label)
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(-63);
  databases.push(name);
  return name;
}

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
  feeds.emulator.script('198.51.100.23', 'malicious');
});

afterEach(async () => {
  for (const item of running.splice(0).reverse()) await item.stop();
});

afterAll(async () => {
  await feeds?.emulator.close();
  if (databases.length === 0) return;
  const mongo = new MongoClient(MONGODB_URI);
  try {
    for (const name of databases) await mongo.db(name).dropDatabase();
  } finally {
    await mongo.close();
  }
});

describeWith(['ferretdb'], '4.2 DocumentStoreStorage (a MongoDB wire-protocol server)', () => {
  it('stores the scan results as {indicator, results, scanDate, ttl} and finds them with the documented query', async () => {
    const trojan = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      strategy: 'custom',
      thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
      apiKeys: feeds.apiKeys,
      lists: [{ name: 'blocklist', file: blocklist }],
      security: { enforceHttps: false },
      logging: { enabled: false },
    });
    running.push(trojan);
    const mongoStorage = new DocumentStoreStorage({
      uri: MONGODB_URI,
      database: database('threat_intel'),
      collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
    });
    running.push(mongoStorage);

    const scanResults = await trojan.correlate('malicious-site.com');
    await mongoStorage.store('threats', {
      indicator: 'malicious-site.com',
      results: scanResults,
      scanDate: new Date(),
      ttl: 86400, // 24 hours
    });
    const cleanResults = await trojan.correlate('8.8.8.8');
    await mongoStorage.store('threats', {
      indicator: '8.8.8.8',
      results: cleanResults,
      scanDate: new Date(),
      ttl: 86400,
    });

    const highThreats = await mongoStorage.query('threats', {
      'results.confidence': { $gte: 80 },
      scanDate: { $gte: new Date(Date.now() - 7 * 24 * 60 * 60 * 1000) },
    });

    expect(scanResults.confidence).toBeGreaterThanOrEqual(80);
    expect(cleanResults.confidence).toBeLessThan(80);
    expect(highThreats).toHaveLength(1);
    expect(highThreats[0]).toMatchObject({
      indicator: 'malicious-site.com',
      results: { indicator: 'malicious-site.com', confidence: scanResults.confidence },
      scanDate: expect.any(Date),
      ttl: 86400,
    });
  });

  it('refuses a filter that would run code on the server, and sends nothing', async () => {
    const mongoStorage = new DocumentStoreStorage(
      {
        uri: MONGODB_URI,
        database: database('refused'),
        collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
      },
      { driverOptions: { monitorCommands: true } },
    );
    running.push(mongoStorage);
    const sent: string[] = [];
    mongoStorage.client.on('commandStarted', (event) => sent.push(event.commandName));

    await expect(mongoStorage.query('threats', { $where: 'sleep(100)' })).rejects.toThrow(
      'Invalid storage filter: $where: $where is refused: it runs JavaScript on the server',
    );
    await expect(
      mongoStorage.query('threats', {
        'results.confidence': { $function: { body: 'sleep(100)', args: [], lang: 'js' } },
      }),
    ).rejects.toThrow(/results\.confidence\.\$function: \$function is refused/);
    expect(sent).toEqual([]);
  });
});

describeWith(['ferretdb'], '4.2 a client constructed with integrations.storage {type, uri, database}', () => {
  it('keeps every correlation once started, and answers enrichIndicator from what it kept', async () => {
    const name = database('client');
    const trojan = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      strategy: 'custom',
      thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
      apiKeys: feeds.apiKeys,
      security: { enforceHttps: false },
      logging: { enabled: false },
      integrations: {
        storage: { type: 'mongodb', uri: MONGODB_URI, database: name },
      },
    });
    running.push(trojan);
    await trojan.start();

    await trojan.correlate('198.51.100.23');
    await trojan.correlate('198.51.100.23');
    const storage = trojan.integration('storage') as StorageIntegration;
    await storage.flush();

    expect(await storage.enrichIndicator({ type: 'ip', value: '198.51.100.23' })).toEqual({
      indicator: '198.51.100.23',
      firstSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      associatedEvents: 2,
      riskScore: expect.any(Number),
    });
    await trojan.alerts.settled();
    expect((await trojan.alerts.list()).items.map((alert) => alert.title)).toEqual([
      expect.stringContaining('198.51.100.23'),
    ]);
  });
});
