// The REST server of ../shared/INTERFACE.md section 4.1 (`APIServer`, from `@threatlib/server`), with the
// authentication of section 5 and the rate limit of section 8: constructed, mounted at `/api/v1` and started as
// documented, on a free port instead of a fixed one, and every route called with the documented request.
import { ThreatClient } from '@threatlib/core';
import { APIServer } from '@threatlib/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatedFeeds, startEmulatedFeeds } from './support.js';

const API_TOKEN = 'interface-api-token-0123456789abcdef';

let feeds: EmulatedFeeds;
let server: APIServer;
let baseUrl: string;

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
  feeds.emulator.script('malicious-site.com', 'malicious');
  feeds.emulator.script('198.51.100.23', 'malicious');

  const trojan = new ThreatClient({
    sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
    apiKeys: feeds.apiKeys,
    security: { enforceHttps: false },
    logging: { enabled: false },
  });
  server = new APIServer({
    port: 0,
    authentication: { type: 'bearer', tokens: [API_TOKEN] },
    rateLimit: { windowMs: 15 * 60 * 1000, max: 100 },
  });
  server.mount('/api/v1', trojan);
  await server.start();
  baseUrl = `${server.address}/api/v1`;
});

afterAll(async () => {
  await server?.stop();
  await feeds?.emulator.close();
});

/** A call as the document shows it: JSON body, `Content-Type: application/json`, `Authorization: Bearer <API_TOKEN>`. */
async function call(method: 'GET' | 'POST', path: string, body?: unknown, token = API_TOKEN) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('4.1 routes under /api/v1', () => {
  it('POST /threats/scan with {indicator, type: "ip"}', async () => {
    const { status, body } = await call('POST', '/threats/scan', { indicator: '8.8.8.8', type: 'ip' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ indicator: '8.8.8.8', type: 'ipv4' });
  });

  it('POST /threats/scan with {indicator, type: "domain"}', async () => {
    const { status, body } = await call('POST', '/threats/scan', { indicator: 'malicious-site.com', type: 'domain' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ indicator: 'malicious-site.com', type: 'domain' });
    expect(body.results).toContainEqual(expect.objectContaining({ feed: 'feed_otx', verdict: 'malicious' }));
  });

  it('POST /threats/batch', async () => {
    const { status, body } = await call('POST', '/threats/batch', {
      indicators: [
        { indicator: '8.8.8.8', type: 'ip' },
        { indicator: 'malicious-site.com', type: 'domain' },
      ],
    });
    expect(status).toBe(200);
    expect(body.summary).toEqual({ total: 2, succeeded: 2, failed: 0 });
  });

  it('GET /feeds/status', async () => {
    const { status, body } = await call('GET', '/feeds/status');
    expect(status).toBe(200);
    expect((body.feeds as { feed: string }[]).map((f) => f.feed)).toEqual([
      'feed_urls',
      'feed_otx',
      'feed_abuse',
      'feed_cti',
      'feed_scan',
    ]);
  });

  it('POST /correlate', async () => {
    const { status, body } = await call('POST', '/correlate', { indicator: '198.51.100.23', type: 'ip' });
    expect(status).toBe(200);
    expect(body.confidence).toEqual(expect.any(Number));
  });

  it('POST /alerts with the documented alert (201), then GET /alerts lists it', async () => {
    const alert = {
      title: 'Malicious domain detected',
      severity: 'high',
      description: 'Domain flagged by threat intelligence',
      indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
      timestamp: new Date().toISOString(),
    };
    const created = await call('POST', '/alerts', alert);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: alert.title, severity: 'high' });

    const listed = await call('GET', '/alerts');
    expect(listed.status).toBe(200);
    expect(listed.body.items).toContainEqual(
      expect.objectContaining({
        id: created.body.id,
        title: 'Malicious domain detected',
        severity: 'high',
        indicators: [expect.objectContaining({ value: 'malicious-site.com', confidence: 95 })],
      }),
    );
  });
});

describe('5 authentication: Authorization: Bearer <API_TOKEN>, one of the configured tokens', () => {
  it('refuses a request without the header or with another token', async () => {
    expect((await call('GET', '/feeds/status', undefined, '')).status).toBe(401);
    expect((await call('GET', '/feeds/status', undefined, 'not-a-configured-token')).status).toBe(401);
  });
});

describe('8 rate limit: rateLimit.max requests per client IP per windowMs', () => {
  it('answers 429 to the request after max (the example: 100 per 15 minutes)', async () => {
    const trojan = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      apiKeys: feeds.apiKeys,
      security: { enforceHttps: false },
      logging: { enabled: false },
    });
    const limited = new APIServer({
      port: 0,
      authentication: { type: 'bearer', tokens: [API_TOKEN] },
      rateLimit: { windowMs: 15 * 60 * 1000, max: 100 },
    });
    limited.mount('/api/v1', trojan);
    await limited.start();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 101; i++) {
        const response = await fetch(`${limited.address}/api/v1/feeds/status`, {
          headers: { Authorization: `Bearer ${API_TOKEN}` },
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      expect(statuses.slice(0, 100).every((status) => status === 200)).toBe(true);
      expect(statuses[100]).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});
