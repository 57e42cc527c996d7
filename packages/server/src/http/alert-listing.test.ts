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

describe('GET /alerts?severity=', () => {
  async function withSeverities() {
    const store = new RecordingStore();
    const served = await serveForTest({}, testClient({}, { alertStore: store }));
    const severities = ['low', 'high', 'critical', 'medium', 'high', 'informational'] as const;
    for (const [i, severity] of severities.entries()) {
      await store.add({ title: `a${i}`, severity, timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() });
    }
    const titles = async (query: string) => {
      const response = await served.call(`/api/v1/alerts?${query}`);
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { items: Array<{ title: string }> }).items.map((a) => a.title);
    };
    return { ...served, store, titles };
  }

  it('lists the alerts of exactly that severity, or of several comma-separated, any case', async () => {
    const { titles, store } = await withSeverities();
    expect(await titles('severity=high')).toEqual(['a4', 'a1']);
    expect(store.queries.at(-1)).toMatchObject({ severity: ['high'] });
    expect(await titles('severity=High,CRITICAL')).toEqual(['a4', 'a2', 'a1']);
    expect(await titles('severity=low&severity=critical')).toEqual(['a2', 'a0']);
  });

  it('with minSeverity, an alert must pass both', async () => {
    const { titles } = await withSeverities();
    expect(await titles('severity=low,high&minSeverity=medium')).toEqual(['a4', 'a1']);
    expect(await titles('severity=low&minSeverity=high')).toEqual([]);
  });

  it('pages through one severity with the cursor', async () => {
    const { titles, call } = await withSeverities();
    const first = await json(call('/api/v1/alerts?severity=high&limit=1'));
    expect(first.items.map((a: { title: string }) => a.title)).toEqual(['a4']);
    expect(await titles(`severity=high&limit=1&cursor=${first.nextCursor}`)).toEqual(['a1']);
  });

  it('refuses an unknown severity or an empty one with 400, naming the parameter', async () => {
    const { call } = await withSeverities();
    for (const query of ['severity=severe', 'severity=', 'severity=high,,low']) {
      const response = await call(`/api/v1/alerts?${query}`);
      expect(response.status, query).toBe(400);
      expect(JSON.stringify(await response.json())).toMatch(/severity/);
    }
  });
});
