import { silentLogger, ThreatClient } from '@threatlib/core';
import { type CacheEntry, type CacheStore, MemoryCache } from '@threatlib/core/cache';
import { describe, expect, it, vi } from 'vitest';
import { embeddedConfig } from '../cli/embedded-config.js';
import { json, serveForTest, TEST_TOKEN, testClient } from '../test-support/serve.js';

/** A memory cache that counts every call, so a test sees how often `/health` probes it. */
class CountingCache implements CacheStore {
  readonly kind = 'counting';
  readonly calls = { get: 0, set: 0, delete: 0 };
  readonly #inner = new MemoryCache();
  get<T>(key: string): Promise<CacheEntry<T> | undefined> {
    this.calls.get++;
    return this.#inner.get<T>(key);
  }
  set<T>(key: string, value: T, ttlMs: number): Promise<void> {
    this.calls.set++;
    return this.#inner.set(key, value, ttlMs);
  }
  delete(key: string): Promise<boolean> {
    this.calls.delete++;
    return this.#inner.delete(key);
  }
  clear(): Promise<void> {
    return this.#inner.clear();
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

async function healthServer(options: Parameters<typeof serveForTest>[0] = {}) {
  const cache = new CountingCache();
  const served = await serveForTest(options, testClient({}, { cache }));
  return { ...served, cache };
}

describe('GET /health probes at most once per healthCacheMs', () => {
  it('200 calls in a row cost one cache round trip (default 5 s)', async () => {
    const { base, cache } = await healthServer({ healthCacheMs: 60_000 });
    for (let i = 0; i < 200; i++) expect((await fetch(`${base}/health`)).status).toBe(200);
    expect(cache.calls).toEqual({ get: 1, set: 1, delete: 1 });
  });

  it('the default keeps a probe for 5 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { base, cache } = await healthServer();
      for (let i = 0; i < 20; i++) await fetch(`${base}/health`);
      expect(cache.calls.set).toBe(1);
      vi.advanceTimersByTime(4_999);
      await fetch(`${base}/health`);
      expect(cache.calls.set).toBe(1);
      vi.advanceTimersByTime(1);
      await fetch(`${base}/health`);
      expect(cache.calls.set).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('healthCacheMs: 0 probes on every call made after the last one answered', async () => {
    const { base, cache } = await healthServer({ healthCacheMs: 0 });
    for (let i = 0; i < 5; i++) await fetch(`${base}/health`);
    expect(cache.calls.set).toBe(5);
  });

  it('the uptime moves on while the probe is reused', async () => {
    const { base } = await healthServer({ healthCacheMs: 60_000 });
    const first = await json(fetch(`${base}/health`));
    const second = await json(fetch(`${base}/health`));
    expect(second.clients).toEqual(first.clients);
    expect(second.uptimeSeconds).toBeGreaterThanOrEqual(first.uptimeSeconds);
  });

  it('refuses a negative healthCacheMs', async () => {
    await expect(healthServer({ healthCacheMs: -1 })).rejects.toThrow(/healthCacheMs/);
  });
});

describe('protectProbes', () => {
  it('off (the default): /health and /metrics answer without credentials', async () => {
    const { base } = await serveForTest();
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  });

  it('on: /health and /metrics need the same credentials as the API, and a wrong one costs no probe', async () => {
    const { base, cache } = await healthServer({ protectProbes: true });
    for (const path of ['/health', '/metrics']) {
      const anonymous = await fetch(`${base}${path}`);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const wrong = await fetch(`${base}${path}`, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status, path).toBe(401);
    }
    expect(cache.calls.set).toBe(0);
    const auth = { headers: { authorization: `Bearer ${TEST_TOKEN}` } };
    expect((await fetch(`${base}/health`, auth)).status).toBe(200);
    expect((await fetch(`${base}/metrics`, auth)).status).toBe(200);
    expect(cache.calls.set).toBe(1);
  });

  it('on: the OpenAPI document says the probes need credentials', async () => {
    const { base } = await serveForTest({ protectProbes: true });
    const document = await json(fetch(`${base}/openapi.json`));
    expect(document.paths['/health'].get.security).toBeUndefined();
    expect(document.paths['/health'].get.responses['401']).toBeDefined();
    const open = await serveForTest();
    const openDocument = await json(fetch(`${open.base}/openapi.json`));
    expect(openDocument.paths['/health'].get.security).toEqual([]);
  });
});

describe('GET /health on the quick start (embedded defaults, no keys)', () => {
  it('is ok: the feeds without keys are not_configured, which is not a failure', async () => {
    const { base } = await serveForTest({}, new ThreatClient(embeddedConfig({}), { env: false, logger: silentLogger }));
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      clients: Array<{ feeds: Array<{ feed: string; status: string; configured: boolean }> }>;
    };
    expect(body).toMatchObject({ status: 'ok', ready: true, clients: [{ health: 'healthy', reasons: [] }] });
    const feeds = body.clients[0]?.feeds ?? [];
    expect(feeds.map((f) => [f.feed, f.status, f.configured])).toEqual([
      ['feed_otx', 'not_configured', false],
      ['feed_abuse', 'not_configured', false],
      ['feed_cti', 'not_configured', false],
      ['feed_scan', 'not_configured', false],
    ]);
  });
});
