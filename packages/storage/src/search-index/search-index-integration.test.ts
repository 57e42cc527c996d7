import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { describeWithElasticsearch, E2E_ELASTICSEARCH } from '@threatlib/test-utils/elasticsearch';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { StorageIntegration } from '../integration/storage-integration.js';
import { dropIndices, rawCount, uniqueIndices } from '../test-support/elasticsearch.js';
import type { SearchIndexStorage } from './search-index-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'threatlib-storage-es-'));
const listFile = join(dir, 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n203.0.113.66\n');
const EVIL = 'evil.threatlib-test.net';

const made: Array<Record<string, string>> = [];
const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
});
afterAll(async () => {
  for (const indices of made) await dropIndices(indices);
});

function indicesFor(label: string): ReturnType<typeof uniqueIndices> {
  const indices = uniqueIndices(label);
  made.push(indices);
  return indices;
}

/** A client whose blocklist concludes the threats (no feed asked), with `integrations.storage` on Elasticsearch. */
function client(indices: Record<string, string>, storage: Record<string, unknown> = {}): ThreatClient {
  const made = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'blocklist', file: listFile }],
      security: { enforceHttps: false },
      integrations: {
        storage: { type: 'elasticsearch', ...E2E_ELASTICSEARCH, indices, retentionDays: 30, ...storage },
      },
    } as ThreatConfig,
    // The package under test, from source: what `client.start()` imports by name once the package is installed.
    { env: false, logger: silentLogger, loadIntegrationPackage: () => import('../index.js') },
  );
  clients.push(made);
  return made;
}

describeWithElasticsearch('integrations.storage {type: "elasticsearch"} on Elasticsearch', () => {
  it('keeps every correlation in threats, searchable, and one history per indicator for enrichIndicator', async () => {
    const indices = indicesFor('integration');
    const c = client(indices);
    await c.start();
    const integration = c.integration('storage') as StorageIntegration;
    const es = integration.storage as SearchIndexStorage;
    expect(es.backend).toBe('elasticsearch');

    await c.correlate(EVIL);
    await c.correlate('clean.threatlib-test.net');
    await c.scout(EVIL);
    await integration.flush();

    expect(await rawCount(indices.threats)).toBe(3);
    const records = await es.threatsOf(EVIL);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      indicator: EVIL,
      ttl: 2_592_000,
      results: { indicator: EVIL, verdict: 'malicious' },
      scanDate: expect.any(Date),
      expiresAt: new Date((records[0]?.scanDate.getTime() ?? 0) + 2_592_000_000),
    });
    // The documented search fields come from the correlation: searchable like any indexed threat document.
    const found = await es.search('threats', {
      bool: { filter: [{ range: { confidence: { gte: 80 } } }, { term: { threat_type: 'malicious' } }] },
    });
    expect(found.hits.map((h) => h.document.indicator)).toEqual([EVIL, EVIL]);
    expect(found.hits[0]?.document.sources).toEqual(['list:blocklist']);

    const enriched = await integration.enrichIndicator({ type: 'domain', value: 'EVIL.threatlib-test.net' });
    expect(enriched).toEqual({
      indicator: EVIL,
      firstSeen: records[1]?.scanDate.toISOString(),
      lastSeen: records[0]?.scanDate.toISOString(),
      associatedEvents: 2,
      riskScore: expect.any(Number),
    });
    expect(await integration.enrichIndicator({ type: 'domain', value: 'never.threatlib-test.net' })).toBeUndefined();
    expect(integration.stats()).toMatchObject({ written: 3, buffered: 0, dropped: 0 });
    expect(await integration.health()).toMatchObject({
      healthy: true,
      detail: expect.stringMatching(/^elasticsearch cluster /),
    });
  });

  it('is the client’s alert store: alerts and their deliveries are there after a restart', async () => {
    const indices = indicesFor('alerts');
    const first = client(indices);
    await first.start();
    await first.scout(EVIL);
    await first.alerts.settled();
    const added = await first.alerts.add({ title: 'by hand', severity: 'critical' });
    const before = (await first.alerts.list()).items;
    expect(before.map((a) => a.title)).toEqual(expect.arrayContaining(['by hand', expect.stringContaining(EVIL)]));
    expect(first.alerts.store).toBe((first.integration('storage') as StorageIntegration).alertStore);
    await first.stop();

    const second = client(indices);
    await second.start();
    expect((await second.alerts.list()).items).toEqual(before);
    expect(await second.alerts.get(added.id)).toEqual(added);
  });

  it('refuses invalid options, naming each under integrations.storage', async () => {
    const c = client(uniqueIndices('invalid'), {
      node: 'localhost:9200',
      retentionDays: 0,
      auth: { username: 'elastic', password: 'secret-not-shown' },
      indices: { threats: 'UPPER' },
    });
    const error = await c.start().catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).issues.map((i) => i.path)).toEqual([
      'integrations.storage.node',
      'integrations.storage.indices.threats',
      'integrations.storage.retentionDays',
    ]);
    expect((error as Error).message).not.toContain('secret-not-shown');
  });
});
