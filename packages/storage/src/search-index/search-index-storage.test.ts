import { ValidationError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { eventually } from '@threatlib/test-utils';
import { describeWithElasticsearch, E2E_ELASTICSEARCH, elasticsearch } from '@threatlib/test-utils/elasticsearch';
import { afterEach, expect, it } from 'vitest';
import { StorageError } from '../errors/storage-error.js';
import {
  countRequests,
  dailyIndices,
  dropIndices,
  type FaultProxy,
  rawCount,
  startFaultProxy,
  uniqueIndices,
} from '../test-support/elasticsearch.js';
import { DocumentRejectedError } from './elasticsearch-errors.js';
import type { SearchIndexOptions } from './search-index-options.js';
import { type SearchIndexRuntime, SearchIndexStorage } from './search-index-storage.js';

const made: Array<{ storage: SearchIndexStorage; indices: Record<string, string> }> = [];
const proxies: FaultProxy[] = [];
afterEach(async () => {
  for (const { storage, indices } of made.splice(0)) {
    await storage.stop();
    await dropIndices(indices);
  }
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/** A store on the real Elasticsearch (or `node`), on indices of its own. */
function open(label: string, options: Partial<SearchIndexOptions> = {}, runtime: SearchIndexRuntime = {}) {
  const indices = uniqueIndices(label);
  const storage = new SearchIndexStorage({ ...E2E_ELASTICSEARCH, indices, ...options }, runtime);
  made.push({ storage, indices });
  return { storage, indices };
}

const DAY = 86_400_000;

describeWithElasticsearch('SearchIndexStorage on Elasticsearch', () => {
  it('runs the documented example: index a threat document, then search finds it', async () => {
    const indices = uniqueIndices('example');
    // The documented constructor: {node, auth: {username, password}, indices: {threats, campaigns}}.
    const es = new SearchIndexStorage({
      node: 'http://127.0.0.1:19200',
      auth: { username: 'threatlib', password: 'threatlib-e2e-password' },
      indices: { threats: indices.threats, campaigns: indices.campaigns },
    });
    made.push({ storage: es, indices: { ...indices, indicators: 'indicators', alerts: 'alerts' } });

    const timestamp = new Date().toISOString();
    const indexed = await es.index('threats', {
      indicator: 'malicious-site.com',
      threat_type: 'malware',
      confidence: 95,
      sources: ['feed_otx', 'feed_abuse'],
      '@timestamp': timestamp,
    });
    expect(indexed.index).toBe(`${indices.threats}-${timestamp.slice(0, 10).replaceAll('-', '.')}`);

    const found = await es.search('threats', { term: { indicator: 'malicious-site.com' } });
    expect(found).toEqual({
      total: 1,
      totalIsExact: true,
      hits: [
        {
          index: indexed.index,
          id: indexed.id,
          document: {
            indicator: 'malicious-site.com',
            threat_type: 'malware',
            confidence: 95,
            sources: ['feed_otx', 'feed_abuse'],
            '@timestamp': timestamp,
          },
        },
      ],
    });
    // The daily index has the explicit, strict mapping of the template made at start, and joined the alias.
    const { json } = await elasticsearch('GET', `/${indexed.index}/_mapping`);
    const mapping = (json[indexed.index] as { mappings: { dynamic: string; properties: Record<string, unknown> } })
      .mappings;
    expect(mapping.dynamic).toBe('strict');
    expect(mapping.properties).toMatchObject({
      indicator: { type: 'keyword' },
      threat_type: { type: 'keyword' },
      confidence: { type: 'float' },
      sources: { type: 'keyword' },
      '@timestamp': { type: 'date' },
    });
    const alias = await elasticsearch('GET', `/_alias/${indices.threats}`);
    expect(Object.keys(alias.json)).toEqual([indexed.index]);
  });

  it('searches with term, terms, range and bool on the mapped fields, sorted and sized', async () => {
    const { storage } = open('search');
    const now = Date.now();
    const report = await storage.indexMany('threats', [
      {
        indicator: 'a.example',
        threat_type: 'malware',
        confidence: 95,
        sources: ['feed_otx'],
        '@timestamp': new Date(now),
      },
      {
        indicator: 'b.example',
        threat_type: 'phishing',
        confidence: 70,
        sources: ['feed_abuse'],
        '@timestamp': new Date(now - DAY),
      },
      {
        indicator: 'c.example',
        threat_type: 'malware',
        confidence: 40,
        sources: ['feed_otx', 'feed_cti'],
        '@timestamp': new Date(now - 2 * DAY),
      },
    ]);
    expect(report.failed).toEqual([]);
    // Three days, three daily indices, one alias.
    expect(new Set(report.indexed.map((i) => i.index)).size).toBe(3);

    const indicators = async (query: Record<string, unknown>, options = {}) =>
      (await storage.search('threats', query, options)).hits.map((hit) => hit.document.indicator);
    expect(await indicators({ match_all: {} })).toEqual(['a.example', 'b.example', 'c.example']);
    expect(
      await indicators({
        bool: { filter: [{ term: { threat_type: 'malware' } }, { range: { confidence: { gte: 50 } } }] },
      }),
    ).toEqual(['a.example']);
    expect(await indicators({ terms: { sources: ['feed_cti', 'feed_abuse'] } })).toEqual(['b.example', 'c.example']);
    expect(await indicators({ range: { '@timestamp': { gte: 'now-36h' } } })).toEqual(['a.example', 'b.example']);
    expect(await indicators({ match_all: {} }, { sort: { confidence: 'asc' }, size: 2 })).toEqual([
      'c.example',
      'b.example',
    ]);
    expect(await storage.search('campaigns', { match_all: {} })).toEqual({ total: 0, totalIsExact: true, hits: [] });
  });

  it('campaigns: one record per campaign, searchable on its fields, never returned once expired', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { storage } = open('campaigns', {}, { clock });
    const report = (campaign: string, value: string, indicators: string[], lastSeen: string) => ({
      campaign,
      status: 'formed' as const,
      sharedBy: { kind: 'malwareFamily', value },
      indicators,
      indicatorCount: indicators.length,
      firstSeen: '2026-03-01T09:00:00Z',
      lastSeen,
      sources: ['feed_otx'],
    });
    await storage.recordCampaigns(
      [
        report('cmp_emotet', 'Emotet', ['a.example', 'b.example', 'c.example'], '2026-03-01T11:00:00Z'),
        report('cmp_qakbot', 'Qakbot', ['d.example', 'e.example', 'f.example'], '2026-03-01T10:00:00Z'),
      ],
      { ttl: 3_600 },
    );
    await storage.recordCampaigns(
      [
        {
          ...report('cmp_emotet', 'Emotet', ['g.example'], '2026-03-01T11:30:00Z'),
          status: 'grown',
          indicatorCount: 4,
        },
      ],
      {
        ttl: 3_600,
      },
    );

    const emotet = await storage.search('campaigns', { term: { 'shared_by.value': 'Emotet' } });
    expect(emotet.hits.map((h) => h.document)).toEqual([
      {
        campaign: 'cmp_emotet',
        status: 'grown',
        shared_by: { kind: 'malwareFamily', value: 'Emotet' },
        indicators: ['a.example', 'b.example', 'c.example', 'g.example'],
        indicator_count: 4,
        first_seen: '2026-03-01T09:00:00.000Z',
        last_seen: '2026-03-01T11:30:00.000Z',
        sources: ['feed_otx'],
        expires_at: '2026-03-01T12:30:00.000Z',
      },
    ]);
    // Newest last_seen first; cmp_qakbot expired at 11:00 (last seen 10:00, kept an hour): not returned.
    expect((await storage.search('campaigns', { terms: { indicators: ['a.example', 'd.example'] } })).total).toBe(1);
    expect(await storage.campaign('cmp_qakbot')).toBeUndefined();
    await expect(storage.search('campaigns', { term: { indicator: 'a.example' } })).rejects.toThrow(
      /term\.indicator: "indicator" is not a field of this index/,
    );
    // The sweep deletes the expired record.
    expect(await storage.sweepExpired()).toBe(1);
  });

  it('a bulk with one document Elasticsearch refuses reports it with the reason; the others are indexed', async () => {
    const { storage, indices } = open('refused');
    await storage.start();
    // An operator made one day's index read-only: Elasticsearch refuses what goes there, item by item.
    const blocked = `${indices.threats}-2026.03.02`;
    await elasticsearch('PUT', `/${blocked}`, { settings: { 'index.blocks.write': true } });
    const report = await storage.indexMany('threats', [
      { indicator: 'a.example', threat_type: 'malware', '@timestamp': '2026-03-01T10:00:00Z' },
      { indicator: 'b.example', threat_type: 'malware', '@timestamp': '2026-03-02T10:00:00Z' },
      { indicator: 'c.example', threat_type: 'malware', '@timestamp': '2026-03-01T11:00:00Z' },
    ]);
    expect(report.indexed.map((i) => i.index)).toEqual([
      `${indices.threats}-2026.03.01`,
      `${indices.threats}-2026.03.01`,
    ]);
    expect(report.failed).toEqual([
      {
        position: 1,
        index: blocked,
        id: expect.any(String),
        status: 403,
        reason: `cluster_block_exception: index [${blocked}] blocked by: [FORBIDDEN/8/index write (api)];`,
        error: expect.any(DocumentRejectedError),
      },
    ]);
    expect(storage.stats).toMatchObject({ indexed: 2, rejected: 1, failed: 0, queued: 0 });
    expect((await storage.search('threats')).hits.map((h) => h.document.indicator)).toEqual(['c.example', 'a.example']);

    // index() of such a document rejects with the same reason.
    const error = await storage
      .index('threats', { indicator: 'd.example', '@timestamp': '2026-03-02T12:00:00Z' })
      .catch((e: unknown) => e);
    expect(DocumentRejectedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 403,
      errorType: 'cluster_block_exception',
      index: blocked,
      isRetryable: false,
    });
    expect((error as Error).message).toMatch(
      /^Elasticsearch refused document \S+ for \S+ \(HTTP 403\): cluster_block_exception/,
    );
    await elasticsearch('PUT', `/${blocked}/_settings`, { 'index.blocks.write': false });
  });

  it('refuses a document with a field the mapping does not have, or of the wrong type, before anything is sent', async () => {
    const { storage } = open('invalid');
    await storage.start();
    const requests = countRequests(storage.client);
    const error = await storage
      .indexMany('threats', [
        { indicator: 'a.example', '@timestamp': new Date() },
        { indicator: 'b.example', confidance: 80, '@timestamp': new Date() } as never,
        { indicator: '', confidence: '90', sources: 'feed_otx', '@timestamp': 'yesterday' } as never,
      ])
      .catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([
      '[1].confidance',
      '[2].indicator',
      '[2].confidence',
      '[2].sources',
      '[2].@timestamp',
    ]);
    await expect(storage.index('alerts' as never, { indicator: 'a', '@timestamp': new Date() })).rejects.toThrow(
      'Invalid index key: indexKey: expected "threats", got "alerts"',
    );
    await expect(storage.index('campaigns' as never, { indicator: 'a', '@timestamp': new Date() })).rejects.toThrow(
      /"campaigns" keeps one record per campaign, made from campaign reports \(recordCampaigns\)/,
    );
    expect(requests.sent).toBe(0);
  });

  it('refused queries never reach the server', async () => {
    const { storage } = open('injection');
    await storage.index('threats', { indicator: 'a.example', '@timestamp': new Date() });
    const requests = countRequests(storage.client);
    const refused: unknown[] = [
      { script: { script: { source: 'Thread.sleep(10000)' } } },
      { bool: { filter: [{ term: { indicator: 'a.example' } }, { script: { script: 'true' } }] } },
      { query_string: { query: '*:*' } },
      { terms: { indicator: { index: '.security', id: 'x', path: 'password' } } },
      { wildcard: { indicator: '*' } },
      JSON.parse('{"match_all": {}, "script_fields": {"x": {"script": "1"}}}'),
    ];
    for (const query of refused) {
      await expect(storage.search('threats', query as never)).rejects.toSatisfy(ValidationError.isInstance);
    }
    await expect(storage.search('threats', undefined, { index: '.security' } as never)).rejects.toThrow(
      /index: unknown option/,
    );
    expect(requests.sent).toBe(0);
    // An allowed query goes out, as the one search request it builds.
    expect((await storage.search('threats', { term: { indicator: 'a.example' } })).total).toBe(1);
    expect(requests.paths.filter((p) => p.endsWith('/_search'))).toEqual([
      `POST /${storage.options.indices.threats}/_search`,
    ]);
  });

  it('retention: old daily indices are deleted at start and by the sweep on the clock, nothing else', async () => {
    const clock = new ManualClock(Date.parse('2026-03-31T08:00:00Z'));
    const { storage, indices } = open('retention', { retentionDays: 30, sweepIntervalMs: DAY }, { clock });
    const base = indices.threats;
    const names = ['2026.02.27', '2026.02.28', '2026.03.01', '2026.03.02', '2026.03.31'].map((d) => `${base}-${d}`);
    const notOurs = `${indices.campaigns}-2026.01.15`;
    for (const name of [...names, `${base}-archive`, notOurs]) {
      expect((await elasticsearch('PUT', `/${name}`)).status).toBe(200);
    }

    await storage.start();
    // On 2026-03-31 with 30 days kept, a day is gone once it ended before 2026-03-01T08:00.
    expect(await dailyIndices(base)).toEqual([
      `${base}-2026.03.01`,
      `${base}-2026.03.02`,
      `${base}-2026.03.31`,
      `${base}-archive`,
    ]);
    expect(await dailyIndices(indices.campaigns)).toEqual([notOurs]);

    // A day later the sweep runs on its own and March 1st goes; the next day, March 2nd.
    await clock.advance(DAY);
    await eventually(() => storage.stats.sweeps === 2, 'the second sweep');
    expect(await dailyIndices(base)).toEqual([`${base}-2026.03.02`, `${base}-2026.03.31`, `${base}-archive`]);
    await clock.advance(DAY);
    await eventually(() => storage.stats.sweeps === 3, 'the third sweep');
    expect(await dailyIndices(base)).toEqual([`${base}-2026.03.31`, `${base}-archive`]);
    expect(storage.stats.sweepFailures).toBe(0);

    await storage.stop();
    expect(clock.pending).toBe(0);
  });

  it('batches by time and by size: nothing is sent before flushIntervalMs, batchSize splits the requests', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { storage } = open('batching', { flushIntervalMs: 200, batchSize: 2 }, { clock });
    await storage.start();
    const requests = countRequests(storage.client);
    const bulks = () => requests.paths.filter((p) => p === 'PUT /_bulk' || p === 'POST /_bulk').length;
    const one = storage.index('threats', { indicator: 'a.example', '@timestamp': new Date(clock.now()) });
    await clock.advance(199);
    expect(bulks()).toBe(0);
    await clock.advance(1);
    expect(await one).toMatchObject({ id: expect.any(String) });
    expect(bulks()).toBe(1);

    const five = ['b', 'c', 'd', 'e', 'f'].map((h) =>
      storage.index('threats', { indicator: `${h}.example`, '@timestamp': new Date(clock.now()) }),
    );
    // Two full batches go at once (two requests in flight at most); the fifth waits for its interval.
    await Promise.all(five.slice(0, 4));
    expect(bulks()).toBe(3);
    await clock.advance(200);
    await five[4];
    expect(bulks()).toBe(4);
    expect(storage.stats).toMatchObject({ indexed: 6, queued: 0, inFlight: 0 });
  });

  it('a bulk request that fails as a whole is tried again after retryDelayMs, and the document is indexed once', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    let bulks = 0;
    const proxy = await startFaultProxy((_method, path) => {
      if (!path.endsWith('/_bulk')) return undefined;
      bulks += 1;
      return bulks === 1
        ? { answer: { status: 503, body: { error: { type: 'unavailable', reason: 'restarting' } } } }
        : undefined;
    });
    proxies.push(proxy);
    const { storage, indices } = open(
      'retry',
      { node: proxy.url, flushIntervalMs: 0, retryDelayMs: 500 },
      { clock, clientOptions: { maxRetries: 0 } },
    );
    const indexed = storage.index('threats', { indicator: 'a.example', '@timestamp': new Date(clock.now()) });
    await eventually(() => bulks === 1, 'the first bulk request');
    await clock.advance(499);
    expect(bulks).toBe(1);
    await clock.advance(1);
    await expect(indexed).resolves.toMatchObject({ index: `${indices.threats}-2026.03.01` });
    expect(bulks).toBe(2);
    expect(storage.stats).toMatchObject({ retriedRequests: 1, indexed: 1 });
    expect(await rawCount(indices.threats)).toBe(1);
  });

  it('a document answered 429 (too busy) is sent again by the bulk helper; one answered 429 each time is reported', async () => {
    let bulks = 0;
    // Marks as "too busy" the items whose document names one of `indicators` in the bulk body sent.
    const busy = (sent: string, indicators: string[]) => (answer: Record<string, unknown>) => {
      const sources = sent
        .trim()
        .split('\n')
        .filter((_line, i) => i % 2 === 1);
      const items = answer.items as Array<{ index: Record<string, unknown> }>;
      sources.forEach((source, position) => {
        if (!indicators.includes((JSON.parse(source) as { indicator: string }).indicator)) return;
        Object.assign(items[position]?.index ?? {}, {
          status: 429,
          error: { type: 'es_rejected_execution_exception', reason: 'rejected execution (queue capacity 200)' },
        });
      });
      return { ...answer, errors: true };
    };
    const proxy = await startFaultProxy((_method, path, _n, body) => {
      if (!path.endsWith('/_bulk')) return undefined;
      bulks += 1;
      return { rewrite: busy(body, bulks === 1 ? ['b.example', 'always.example'] : ['always.example']) };
    });
    proxies.push(proxy);
    const { storage, indices } = open('busy', { node: proxy.url, retries: 1, retryDelayMs: 10 });
    const report = await storage.indexMany('threats', [
      { indicator: 'a.example', '@timestamp': new Date() },
      { indicator: 'b.example', '@timestamp': new Date() },
    ]);
    expect(report.failed).toEqual([]);
    expect(bulks).toBe(2);
    // b.example was sent twice and is stored once: the document carries its id.
    expect(await rawCount(indices.threats)).toBe(2);

    const error = await storage
      .index('threats', { indicator: 'always.example', '@timestamp': new Date() })
      .catch((e) => e);
    expect(DocumentRejectedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, errorType: 'too_many_requests', isRetryable: true });
    expect((error as Error).message).toMatch(
      /too_many_requests: Elasticsearch was still too busy \(429\) after 1 retries$/,
    );
    expect(bulks).toBe(4);
    expect(storage.stats).toMatchObject({ indexed: 2, rejected: 1 });
  });

  it('what cannot be sent after the retries is reported as a retryable StorageError naming no secret', async () => {
    const proxy = await startFaultProxy((_method, path) =>
      path.endsWith('/_bulk')
        ? { answer: { status: 503, body: { error: { type: 'unavailable', reason: 'down' } } } }
        : undefined,
    );
    proxies.push(proxy);
    const { storage } = open('unsendable', { node: proxy.url, retries: 1, retryDelayMs: 10, flushIntervalMs: 0 });
    const error = await storage.index('threats', { indicator: 'a.example', '@timestamp': new Date() }).catch((e) => e);
    expect(StorageError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ backend: 'elasticsearch', operation: 'index', target: 'threats', isRetryable: true });
    expect((error as Error).message).toBe('Elasticsearch index on threats failed: HTTP 503: unavailable: down');
    expect(storage.stats).toMatchObject({ failed: 1, retriedRequests: 1, indexed: 0 });
  });

  it('start fails clearly on wrong credentials, an unreachable node and an alias name taken by an index', async () => {
    const wrong = open('auth', { auth: { username: 'threatlib', password: 'not-the-password-x1' } }).storage;
    const denied = await wrong.start().catch((e: unknown) => e);
    expect(denied).toMatchObject({ name: 'StorageError', operation: 'connect', isRetryable: false });
    expect((denied as Error).message).toMatch(/^Elasticsearch connect failed: HTTP 401: security_exception: /);
    expect((denied as Error).message).not.toContain('not-the-password-x1');

    const down = open('down', { node: 'http://127.0.0.1:9' }, { clientOptions: { maxRetries: 0 } }).storage;
    await expect(down.start()).rejects.toMatchObject({ operation: 'connect', isRetryable: true });

    const { storage, indices } = open('taken');
    await elasticsearch('PUT', `/${indices.threats}`);
    await expect(storage.start()).rejects.toThrow(
      `indices.threats: "${indices.threats}" is an existing index; the store keeps threats in daily indices`,
    );
  });

  it('an alert index made by an earlier version gains the fields added since, so pending() works on it', async () => {
    const { storage, indices } = open('upgrade');
    // The alert index as the first version made it: no `pending` field, and the mapping is strict.
    await elasticsearch('PUT', `/${indices.alerts}`, {
      mappings: {
        dynamic: 'strict',
        _meta: { managed_by: 'threatlib', kind: 'alerts' },
        properties: {
          time: { type: 'date' },
          seq: { type: 'keyword' },
          rank: { type: 'byte' },
          alert: { type: 'object', enabled: false },
          deliveries: { type: 'object', enabled: false },
        },
      },
    });
    const alert = await storage.alerts.add({
      title: 'waiting',
      severity: 'high',
      deliveries: [{ integration: 'siem', status: 'pending', attempts: 1 }],
    });
    expect((await storage.alerts.pending()).items).toEqual([alert]);
  });

  it('stop() sends what is queued and waits for it; afterwards the store refuses work', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { storage, indices } = open('stop', { flushIntervalMs: 60_000, maxQueued: 2 }, { clock });
    await storage.start();
    const queued = [1, 2].map((i) =>
      storage.index('threats', { indicator: `h${i}.example`, '@timestamp': new Date(clock.now()) }),
    );
    // A third would pass maxQueued: refused at once, the two queued are kept.
    await expect(
      storage.index('threats', { indicator: 'h3.example', '@timestamp': new Date(clock.now()) }),
    ).rejects.toMatchObject({
      isRetryable: true,
      message: expect.stringMatching(/2 are already waiting to be sent \(maxQueued 2\)/),
    });
    await storage.stop();
    await expect(Promise.all(queued)).resolves.toHaveLength(2);
    expect(await rawCount(indices.threats)).toBe(2);
    await expect(storage.index('threats', { indicator: 'late.example', '@timestamp': new Date() })).rejects.toThrow(
      'the search index is stopped',
    );
    expect(clock.pending).toBe(0);
  });
});
