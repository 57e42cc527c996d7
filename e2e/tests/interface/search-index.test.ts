// The search index of ../shared/INTERFACE.md (sections 2.5, 4.2 and 5): `SearchIndexStorage` from
// `@threatlib/storage` on a real Elasticsearch 8 (an e2e service), constructed with {node, auth: {username,
// password}, indices: {threats, campaigns}}, indexing the documented search-index threat document {indicator,
// threat_type, confidence, sources, @timestamp}; and a client constructed with `integrations: {storage: {type:
// 'elasticsearch', ...}}` that keeps its correlations once started. Index names are unique per run; the server address
// is the e2e service's, and the user and password are the ones e2e/services.d/elasticsearch.sh gives its test user.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreatClient } from '@threatlib/core';
import { SearchIndexStorage, type StorageIntegration } from '@threatlib/storage';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWith, type EmulatedFeeds, servicePort, startEmulatedFeeds, uniqueName } from './support.js';

const ELASTICSEARCH_NODE = `http://127.0.0.1:${servicePort('elasticsearch')}`;
const ELASTICSEARCH_AUTH = { username: 'threatlib', password: 'threatlib-e2e-password' };

// The user's own blocklist names the threat, so its confidence is certain whatever the emulated feeds answer.
const listDir = mkdtempSync(join(tmpdir(), 'threatlib-e2e-search-index-'));
const blocklist = join(listDir, 'blocklist.txt');
writeFileSync(blocklist, 'malicious-site.com\n');

let feeds: EmulatedFeeds;
const running: { stop(): Promise<void> }[] = [];
const names: string[] = [];

/** An index name of this run (Elasticsearch index names are lowercase). */
function indexName(label: string): string {
  const name = uniqueName(label).toLowerCase();
  names.push(name);
  return name;
}

/** One call to the real Elasticsearch as the test user, for cleaning up. */
async function elasticsearch(method: string, path: string): Promise<void> {
  const { username, password } = ELASTICSEARCH_AUTH;
  const response = await fetch(`${ELASTICSEARCH_NODE}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
    signal: AbortSignal.timeout(30_000),
  });
  await response.body?.cancel();
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
  for (const name of names) {
    await elasticsearch('DELETE', `/${name}-*?ignore_unavailable=true&allow_no_indices=true`);
    await elasticsearch('DELETE', `/${name}?ignore_unavailable=true`);
    await elasticsearch('DELETE', `/_index_template/threatlib-${name}`);
  }
});

describeWith(['elasticsearch'], '4.2 SearchIndexStorage (Elasticsearch)', () => {
  it('indexes the documented threat document {indicator, threat_type, confidence, sources, @timestamp}, and a search finds it', async () => {
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
    const esStorage = new SearchIndexStorage({
      node: ELASTICSEARCH_NODE,
      auth: { username: ELASTICSEARCH_AUTH.username, password: ELASTICSEARCH_AUTH.password },
      indices: { threats: indexName('threat-intel'), campaigns: indexName('threat-campaigns') },
    });
    running.push(esStorage);

    const scanResults = await trojan.correlate('malicious-site.com');
    const timestamp = new Date().toISOString();
    await esStorage.index('threats', {
      indicator: 'malicious-site.com',
      threat_type: 'malware',
      confidence: scanResults.confidence,
      sources: ['feed_otx', 'feed_abuse'],
      '@timestamp': timestamp,
    });

    const found = await esStorage.search('threats', {
      bool: { filter: [{ term: { indicator: 'malicious-site.com' } }, { range: { confidence: { gte: 80 } } }] },
    });
    expect(scanResults.confidence).toBeGreaterThanOrEqual(80);
    expect(found.total).toBe(1);
    expect(found.hits[0]?.document).toEqual({
      indicator: 'malicious-site.com',
      threat_type: 'malware',
      confidence: scanResults.confidence,
      sources: ['feed_otx', 'feed_abuse'],
      '@timestamp': timestamp,
    });
  });

  it('refuses a query that would run a script on the server, and sends nothing', async () => {
    const esStorage = new SearchIndexStorage({
      node: ELASTICSEARCH_NODE,
      auth: ELASTICSEARCH_AUTH,
      indices: { threats: indexName('refused'), campaigns: indexName('refused-campaigns') },
    });
    running.push(esStorage);
    await esStorage.start();
    const sent: string[] = [];
    esStorage.client.diagnostic.on('request', (_error, event) => sent.push(String(event?.meta.request.params.path)));

    await expect(esStorage.search('threats', { script: { script: { source: 'Thread.sleep(100)' } } })).rejects.toThrow(
      'Invalid search query: script: "script" is refused: it runs a script on the server',
    );
    await expect(
      esStorage.search('threats', { terms: { indicator: { index: '.security', id: '1', path: 'password' } } }),
    ).rejects.toThrow('Invalid search query: terms.indicator: expected an array of 1 to 1000 values');
    expect(sent).toEqual([]);
  });
});

describeWith(
  ['elasticsearch'],
  '4.2 a client constructed with integrations.storage {type: "elasticsearch", ...}',
  () => {
    it('keeps every correlation once started, searchable, and answers enrichIndicator from what it kept', async () => {
      const threats = indexName('client-threats');
      const trojan = new ThreatClient({
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        strategy: 'custom',
        thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
        apiKeys: feeds.apiKeys,
        security: { enforceHttps: false },
        logging: { enabled: false },
        integrations: {
          storage: {
            type: 'elasticsearch',
            node: ELASTICSEARCH_NODE,
            auth: ELASTICSEARCH_AUTH,
            indices: {
              threats,
              campaigns: indexName('client-campaigns'),
              indicators: indexName('client-indicators'),
              alerts: indexName('client-alerts'),
            },
            retentionDays: 30,
          },
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
      const es = storage.storage as SearchIndexStorage;
      const kept = await es.search('threats', { term: { indicator: '198.51.100.23' } });
      expect(kept.total).toBe(2);
      expect(kept.hits[0]?.index).toMatch(new RegExp(`^${threats.replaceAll('.', '\\.')}-\\d{4}\\.\\d\\d\\.\\d\\d$`));
      await trojan.alerts.settled();
      expect((await trojan.alerts.list()).items.map((alert) => alert.title)).toEqual([
        expect.stringContaining('198.51.100.23'),
      ]);
    });
  },
);
