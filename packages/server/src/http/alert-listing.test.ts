import { type AlertQuery, MemoryAlertStore } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { json, post, serveForTest, testClient } from '../test-support/serve.js';

/** The memory store, recording each listing's query. */
class RecordingStore extends MemoryAlertStore {
  readonly queries: AlertQuery[] = [];
  override list(query?: AlertQuery) {
    this.queries.push({ ...query });
    return super.list(query);
  }
}

async function withAlerts(count: number, metadataBytes: number, options: Parameters<typeof serveForTest>[0] = {}) {
  const store = new RecordingStore();
  const served = await serveForTest(options, testClient({}, { alertStore: store }));
  for (let i = 0; i < count; i++) {
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    await store.add({ title: `a${i}`, severity: 'high', timestamp, metadata: { blob: 'x'.repeat(metadataBytes) } });
  }
  store.queries.length = 0;
  return { ...served, store };
}

describe('GET /alerts answers at most alertPageBytes a page', () => {
  it('the reported case: limit=500 of large alerts is cut at the budget, and the cursor goes through them all', async () => {
    const { call } = await withAlerts(40, 60_000);
    const titles: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await call(`/api/v1/alerts?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await response.text();
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 * 1024);
      const page = JSON.parse(text);
      titles.push(...page.items.map((a: { title: string }) => a.title));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(titles).toEqual(Array.from({ length: 40 }, (_, i) => `a${39 - i}`));
  });

  it('the budget is an option, and a single alert over it still comes, one a page', async () => {
    const { call } = await withAlerts(3, 20_000, { alertPageBytes: 4_096 });
    const page = await json(call('/api/v1/alerts?limit=10'));
    expect(page.items.map((a: { title: string }) => a.title)).toEqual(['a2']);
    expect(page.nextCursor).toEqual(expect.any(String));
  });

  it('small alerts still come limit at a time', async () => {
    const { call } = await withAlerts(30, 10);
    const page = await json(call('/api/v1/alerts?limit=25'));
    expect(page.items).toHaveLength(25);
    expect(page.nextCursor).toEqual(expect.any(String));
  });
});

describe('HEAD /alerts does not build the listing', () => {
  it('asks the store for one alert, whatever the limit, and answers no body', async () => {
    const { call, store } = await withAlerts(40, 60_000);
    const response = await call('/api/v1/alerts?limit=500', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toBe('');
    expect(store.queries.map((q) => q.limit)).toEqual([1]);
  });

  it('answers 400 for a query GET would refuse', async () => {
    const { call } = await withAlerts(1, 10);
    expect((await call('/api/v1/alerts?limit=0x10', { method: 'HEAD' })).status).toBe(400);
    expect((await call('/api/v1/alerts?cursor=nonsense', { method: 'HEAD' })).status).toBe(400);
  });
});

describe('GET /alerts?limit takes decimal digits only', () => {
  it.each(['0x10', '1e1', '+5', ' 5', '5.0', '', '0b11', '0o7', 'Infinity', '5 '])(
    'limit=%j is a 400',
    async (limit) => {
      const { call } = await withAlerts(20, 10);
      const response = await call(`/api/v1/alerts?limit=${encodeURIComponent(limit)}`);
      expect(response.status).toBe(400);
      expect(await json(response)).toMatchObject({
        errors: [{ path: 'limit', message: expect.stringMatching(/decimal/) }],
      });
    },
  );

  it.each([
    ['16', 16],
    ['016', 16],
    ['1', 1],
    ['500', 20],
  ])('limit=%s lists %i', async (limit, count) => {
    const { call } = await withAlerts(20, 10);
    const page = await json(call(`/api/v1/alerts?limit=${limit}`));
    expect(page.items).toHaveLength(count);
  });

  it('limit=501 and limit=0 are out of range', async () => {
    const { call } = await withAlerts(1, 10);
    expect((await call('/api/v1/alerts?limit=501')).status).toBe(400);
    expect((await call('/api/v1/alerts?limit=0')).status).toBe(400);
  });
});

describe('POST /alerts then GET', () => {
  it('lists what was posted', async () => {
    const { call } = await withAlerts(0, 0);
    expect((await call('/api/v1/alerts', post({ title: 'posted', severity: 'high' }))).status).toBe(201);
    const page = await json(call('/api/v1/alerts'));
    expect(page.items.map((a: { title: string }) => a.title)).toEqual(['posted']);
  });
});
