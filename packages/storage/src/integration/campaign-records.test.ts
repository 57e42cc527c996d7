import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import type { Feed } from '@threatlib/core/feeds';
import { describeWithFerretDB, dropDatabases, E2E_FERRETDB_URI, uniqueDatabase } from '@threatlib/test-utils/ferretdb';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { CampaignReport } from '../contract/threat-storage.js';
import type { StorageIntegration } from './storage-integration.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-campaigns-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');

const databases: string[] = [];
const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
});
afterAll(() => dropDatabases(databases));

function client(database: string, logger: Logger = silentLogger, batching: object = {}): ThreatClient {
  const made = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'blocklist', file: listFile }],
      security: { enforceHttps: false },
      integrations: { storage: { type: 'mongodb', uri: E2E_FERRETDB_URI, database, ttl: 7 * 86_400, batching } },
    } as ThreatConfig,
    { env: false, logger, loadIntegrationPackage: () => import('../index.js') },
  );
  clients.push(made);
  return made;
}

/**
 * Emits a campaign report on the client's bus as core's campaign tracker does (`campaignDetected`, documented payload
 * `{campaign, status, sharedBy, indicators, indicatorCount, firstSeen, lastSeen, sources}`); tests give bad ones too.
 */
function report(c: ThreatClient, campaign: Partial<CampaignReport> & Record<string, unknown>): void {
  c.events.emit('campaignDetected', campaign as never);
}

/** A feed that calls every indicator malicious, of the malware family Qakbot: three make a campaign. */
const qakbotFeed: Feed = {
  specificationVersion: 'v1',
  id: 'feed_qakbot',
  name: 'Qakbot tracker',
  supportedTypes: ['domain'],
  requiresKey: false,
  defaultEndpoint: 'https://qakbot.threatlib-test.net',
  async lookup() {
    return {
      status: 'ok',
      verdict: 'malicious',
      score: 0.9,
      categories: [],
      tags: [],
      malwareFamilies: ['Qakbot'],
      references: [],
      evidence: ['a Qakbot C2'],
    };
  },
};

const formed = {
  campaign: 'cmp_Q2v8bT1xYk3mN0pR5sW7zA',
  status: 'formed',
  sharedBy: { kind: 'malwareFamily', value: 'Qakbot' },
  indicators: ['a.threatlib-test.net', 'b.threatlib-test.net', 'c.threatlib-test.net'],
  indicatorCount: 3,
  firstSeen: '2026-05-01T00:00:00.000Z',
  lastSeen: '2026-05-01T03:00:00.000Z',
  sources: ['feed_otx'],
} satisfies CampaignReport;

async function campaignDocuments(db: string): Promise<Array<Record<string, unknown>>> {
  const mongo = new MongoClient(E2E_FERRETDB_URI);
  try {
    return await mongo.db(db).collection('campaigns').find({}).toArray();
  } finally {
    await mongo.close();
  }
}

describeWithFerretDB('integrations.storage keeps the campaigns the client reports, in campaigns', () => {
  it('the campaigns core’s tracker finds among the threats concluded are stored as they form and grow', async () => {
    const db = uniqueDatabase('campaigntracker');
    databases.push(db);
    const c = client(db);
    c.registerFeed(qakbotFeed);
    const reports: string[] = [];
    c.on('campaignDetected', (campaign) => reports.push(`${campaign.status}:${campaign.indicatorCount}`));
    await c.start();
    for (const host of ['c2-1', 'c2-2', 'c2-3', 'c2-4']) await c.correlate(`${host}.threatlib-test.net`);
    expect(reports).toEqual(['formed:3', 'grown:4']);
    await (c.integration('storage') as StorageIntegration).flush();

    const [campaign, ...others] = await campaignDocuments(db);
    expect(others).toEqual([]);
    expect(campaign).toMatchObject({
      _id: expect.stringMatching(/^cmp_/),
      status: 'grown',
      sharedBy: { kind: 'malwareFamily', value: 'Qakbot' },
      indicators: ['c2-1', 'c2-2', 'c2-3', 'c2-4'].map((host) => `${host}.threatlib-test.net`),
      indicatorCount: 4,
      sources: ['feed_qakbot'],
    });
  });

  it('one record per campaign id, upserted and growing with each report', async () => {
    const db = uniqueDatabase('campaigns');
    databases.push(db);
    const c = client(db);
    await c.start();
    const storage = c.integration('storage') as StorageIntegration;

    report(c, formed);
    report(c, {
      ...formed,
      status: 'grown',
      indicators: ['b.threatlib-test.net', 'c.threatlib-test.net', 'd.threatlib-test.net', 'e.threatlib-test.net'],
      indicatorCount: 4,
      firstSeen: '2026-05-01T01:00:00.000Z',
      lastSeen: '2026-05-01T05:00:00.000Z',
      sources: ['feed_abuse'],
    });
    report(c, { ...formed, campaign: 'cmp_other', sharedBy: { kind: 'tag', value: 'phishing' } });
    await storage.flush();

    const documents = await campaignDocuments(db);
    expect(documents).toHaveLength(2);
    expect(documents.find((d) => d._id === formed.campaign)).toEqual({
      _id: formed.campaign,
      campaign: formed.campaign,
      status: 'grown',
      sharedBy: { kind: 'malwareFamily', value: 'Qakbot' },
      indicators: [
        'a.threatlib-test.net',
        'b.threatlib-test.net',
        'c.threatlib-test.net',
        'd.threatlib-test.net',
        'e.threatlib-test.net',
      ],
      indicatorCount: 4,
      firstSeen: new Date('2026-05-01T00:00:00.000Z'),
      lastSeen: new Date('2026-05-01T05:00:00.000Z'),
      sources: ['feed_otx', 'feed_abuse'],
      // Kept the integration's ttl (7 days) after it was last seen.
      expiresAt: new Date('2026-05-08T05:00:00.000Z'),
    });
    expect(storage.stats()).toMatchObject({ written: 3, dropped: 0, buffered: 0 });
  });

  it('the document store answers queries on campaigns, by indicator or by what they share', async () => {
    const db = uniqueDatabase('campaignq');
    databases.push(db);
    const c = client(db);
    await c.start();
    const storage = c.integration('storage') as StorageIntegration;
    // Seen now, so that the 7-day ttl keeps it for the query.
    const now = new Date().toISOString();
    report(c, { ...formed, firstSeen: now, lastSeen: now });
    await storage.flush();
    const query = (filter: object) =>
      (storage.storage as unknown as { query(k: string, f: object): Promise<Array<{ id: string }>> }).query(
        'campaigns',
        filter,
      );
    expect((await query({ indicators: 'b.threatlib-test.net' })).map((r) => r.id)).toEqual([formed.campaign]);
    expect((await query({ 'sharedBy.kind': 'malwareFamily', 'sharedBy.value': 'Qakbot' })).length).toBe(1);
    expect(await query({ indicators: 'z.threatlib-test.net' })).toEqual([]);
  });

  it('a report that is not one is refused on arrival, logged and counted as dropped; the others are kept', async () => {
    const db = uniqueDatabase('campaignbad');
    databases.push(db);
    const errors: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      error: (_obj: object, msg?: string) => errors.push(msg ?? ''),
      child: () => logger,
    };
    const c = client(db, logger);
    await c.start();
    const storage = c.integration('storage') as StorageIntegration;
    report(c, { ...formed, campaign: '', firstSeen: 'last week' });
    report(c, formed);
    await storage.flush();
    expect(storage.stats()).toMatchObject({ written: 1, dropped: 1 });
    expect(errors).toEqual([
      expect.stringMatching(/^1 records could not be kept .*campaign report was not one: .*campaign: .*firstSeen: /),
    ]);
    expect((await campaignDocuments(db)).map((d) => d._id)).toEqual([formed.campaign]);
  });

  it('a batch whose campaign write fails is retried from that step: the sightings before it are not counted twice', async () => {
    const db = uniqueDatabase('campaignretry');
    databases.push(db);
    const c = client(db, silentLogger, { maxDelayMs: 60_000, retryDelayMs: 1, maxRetryDelayMs: 1 });
    await c.start();
    const storage = c.integration('storage') as StorageIntegration;
    const backend = storage.storage as { recordCampaigns: (...args: never[]) => Promise<void> };
    const recordCampaigns = backend.recordCampaigns.bind(backend);
    let failures = 1;
    backend.recordCampaigns = async (...args) => {
      if (failures-- > 0) throw new Error('connection reset');
      return recordCampaigns(...args);
    };
    await c.correlate('evil.threatlib-test.net');
    report(c, formed);
    await storage.flush();
    expect(storage.stats()).toMatchObject({ written: 2, batches: 1, failedWrites: 1, dropped: 0 });
    expect(await storage.enrichIndicator({ type: 'domain', value: 'evil.threatlib-test.net' })).toMatchObject({
      associatedEvents: 1,
    });
    expect((await campaignDocuments(db)).map((d) => d._id)).toEqual([formed.campaign]);
  });
});
