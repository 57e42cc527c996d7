import { ValidationError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { describeWithElasticsearch, elasticsearch } from '@threatlib/test-utils/elasticsearch';
import { expect, it } from 'vitest';
import { countRequests, uniqueIndices } from '../test-support/elasticsearch.js';
import { DAY, made, open } from '../test-support/search-index.js';
import { SearchIndexStorage } from './search-index-storage.js';

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
});
