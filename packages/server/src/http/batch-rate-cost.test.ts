import { describe, expect, it } from 'vitest';
import { json, post, serveForTest } from '../test-support/serve.js';

const batch = (n: number) => post({ indicators: Array.from({ length: n }, (_, i) => `198.51.100.${i + 1}`) });

describe('a batch of n indicators counts as n requests toward the rate limit', () => {
  it('the reported case: a batch no longer does many lookups for the price of one request', async () => {
    const { call } = await serveForTest({ rateLimit: { max: 10, windowMs: 60_000 } });
    expect((await call('/api/v1/threats/batch', batch(6))).status).toBe(200);
    expect((await call('/api/v1/threats/batch', batch(4))).status).toBe(200);
    const limited = await call('/api/v1/feeds/status');
    expect(limited.status).toBe(429);
  });

  it('a batch over what is left is refused whole, before any lookup, and costs one request', async () => {
    const { call } = await serveForTest({ rateLimit: { max: 10, windowMs: 60_000 } });
    expect((await call('/api/v1/threats/batch', batch(5))).status).toBe(200); // 5 used
    const refused = await call('/api/v1/threats/batch', batch(6)); // 1 more used: 6
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await json(refused)).toMatchObject({
      type: 'https://threatlib.dev/problems/rate-limited',
      detail: expect.stringMatching(/a batch of 6 indicators counts as 6 requests, and 5 are left/),
    });
    expect((await call('/api/v1/threats/batch', batch(4))).status).toBe(200); // 10
    expect((await call('/api/v1/feeds/status')).status).toBe(429);
  });

  it('a batch larger than the whole budget is too large (413, no Retry-After: no window will ever hold it)', async () => {
    const { call } = await serveForTest({ rateLimit: { max: 10, windowMs: 60_000 } });
    const refused = await call('/api/v1/threats/batch', batch(11));
    expect(refused.status).toBe(413);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(await json(refused)).toMatchObject({
      type: 'https://threatlib.dev/problems/batch-too-large',
      detail: expect.stringMatching(/more than the 10 one address may make per window/),
    });
    expect((await call('/api/v1/feeds/status')).status).toBe(200);
  });

  it('a batch of one costs one', async () => {
    const { call } = await serveForTest({ rateLimit: { max: 2, windowMs: 60_000 } });
    expect((await call('/api/v1/threats/batch', batch(1))).status).toBe(200);
    expect((await call('/api/v1/threats/batch', batch(1))).status).toBe(200);
    expect((await call('/api/v1/threats/batch', batch(1))).status).toBe(429);
  });
});
