import { ManualClock } from '@threatlib/core/testing';
import { eventually } from '@threatlib/test-utils';
import { describeWithElasticsearch, elasticsearch } from '@threatlib/test-utils/elasticsearch';
import { expect, it } from 'vitest';
import { StorageError } from '../errors/storage-error.js';
import { countRequests, rawCount, startFaultProxy } from '../test-support/elasticsearch.js';
import { open, proxies } from '../test-support/search-index.js';
import { DocumentRejectedError } from './elasticsearch-errors.js';

describeWithElasticsearch('SearchIndexStorage on Elasticsearch', () => {
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
});
