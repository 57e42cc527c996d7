import { describe, expect, it, vi } from 'vitest';
import { MemoryCache } from '../cache/memory-cache.js';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Feed, FeedLookupResult } from '../feeds/feed.js';
import { answer, failure } from '../feeds/feed-response.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';

const START = Date.parse('2026-11-01T00:00:00Z');

function setup(script: (call: number) => FeedLookupResult, config: Partial<ThreatConfig> = {}) {
  const clock = new ManualClock(START);
  const calls: Array<{ apiKey: string | undefined }> = [];
  const feed: Feed = {
    specificationVersion: 'v1',
    id: 'feed_test',
    name: 'Test feed',
    supportedTypes: ['ipv4'],
    requiresKey: false,
    defaultEndpoint: 'https://feed.example.com',
    async lookup(_indicator, context) {
      calls.push({ apiKey: context.apiKey });
      return script(calls.length);
    },
  };
  const make = (extra: Partial<ThreatConfig> = {}, cache?: MemoryCache) => {
    const client = new ThreatClient(
      {
        sources: ['feed_otx'],
        warninglists: { builtin: false },
        performance: { retryAttempts: 0 },
        caching: { enabled: true, type: 'memory', ttl: 60_000, negativeTtl: 10_000, maxSize: 2 },
        ...config,
        ...extra,
      } as ThreatConfig,
      { env: false, logger: silentLogger, clock, ...(cache ? { cache } : {}) },
    );
    client.registerFeed(feed);
    return client;
  };
  return { clock, calls, make };
}

const result = async (client: ThreatClient, ip: string) =>
  (await client.scout(ip)).results.find((r) => r.feed === 'feed_test');

describe('caching through the client', () => {
  it('answers a repeat from the cache, saying cached: true', async () => {
    const { calls, make } = setup(() => answer({ status: 'ok', verdict: 'malicious', score: 1 }));
    const client = make();
    expect((await result(client, '198.51.100.1'))?.cached).toBe(false);
    const again = await result(client, '198.51.100.1');
    expect(again).toMatchObject({ cached: true, verdict: 'malicious', feed: 'feed_test', indicator: '198.51.100.1' });
    expect(calls).toHaveLength(1);
    expect(client.feedStatus().find((s) => s.feed === 'feed_test')?.requests.cacheHits).toBe(1);
  });

  it('keeps malicious answers for ttl and clean or not-found ones for negativeTtl', async () => {
    let verdict: 'malicious' | 'clean' = 'malicious';
    const { clock, calls, make } = setup(() =>
      verdict === 'malicious'
        ? answer({ status: 'ok', verdict, score: 1 })
        : answer({ status: 'ok', verdict, score: 0 }),
    );
    const client = make();
    await result(client, '198.51.100.1');
    verdict = 'clean';
    await result(client, '198.51.100.2');
    await clock.advance(10_001);
    expect((await result(client, '198.51.100.1'))?.cached).toBe(true);
    expect((await result(client, '198.51.100.2'))?.cached).toBe(false);
    await clock.advance(50_000);
    expect((await result(client, '198.51.100.1'))?.cached).toBe(false);
    expect(calls).toHaveLength(4);
  });

  it('never caches an error', async () => {
    const { calls, make } = setup(() => failure('error', 'HTTP 503', { statusCode: 503 }));
    const client = make();
    await result(client, '198.51.100.1');
    expect((await result(client, '198.51.100.1'))?.cached).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('does not serve an answer cached under another key or endpoint, even from a shared cache', async () => {
    const { clock, calls, make } = setup(() => answer({ status: 'ok', verdict: 'malicious', score: 1 }));
    const shared = new MemoryCache({ now: () => clock.now() });
    await result(make({ apiKeys: { feed_test: 'key-one' } }, shared), '198.51.100.1');
    expect((await result(make({ apiKeys: { feed_test: 'key-two' } }, shared), '198.51.100.1'))?.cached).toBe(false);
    expect((await result(make({ apiKeys: { feed_test: 'key-one' } }, shared), '198.51.100.1'))?.cached).toBe(true);
    const mirror = { feed_test: { key: 'key-one', endpoint: 'https://mirror.example.com' } };
    expect((await result(make({ apiKeys: mirror }, shared), '198.51.100.1'))?.cached).toBe(false);
    expect(calls.map((c) => c.apiKey)).toEqual(['key-one', 'key-two', 'key-one']);
  });

  it('fires cacheEvicted when the cache drops entries for size', async () => {
    const { make } = setup(() => answer({ status: 'ok', verdict: 'malicious', score: 1 }));
    const client = make();
    const evicted = vi.fn();
    client.on('cacheEvicted', evicted);
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) await result(client, ip);
    expect(evicted).toHaveBeenCalled();
  });
});
