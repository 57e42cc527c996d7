// core's `browser.corsProxy` pointed at this server's feed proxy (issue 24): a client holding no key (a page) scans
// through the proxy, which adds the keys server-side, and reaches the feeds (the loopback feed emulator); the GET of
// OTX and the form POST of URLhaus both go through.

import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIServer } from '../api-server.js';
import { startServer, TOKEN } from '../http/raw-http.test-suite.js';

const OTX_KEY = 'otx-key-only-the-server-holds-0123456789';
const IP = '198.51.100.61';

let emulator: FeedEmulator;
let server: APIServer;
let base: string;

beforeAll(async () => {
  emulator = await startFeedEmulator();
  emulator.script(IP, 'malicious');
  const serverClient = new ThreatClient(
    {
      sources: ['feed_otx', 'feed_urls'],
      apiKeys: {
        feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx },
        feed_urls: { endpoint: emulator.endpoints.feed_urls },
      },
      security: { enforceHttps: false },
    } as ThreatConfig,
    { env: false, logger: silentLogger },
  );
  ({ server, base } = await startServer({}, serverClient));
});

afterAll(async () => {
  await server.stop();
  await emulator.close();
});

/** A client as a page holds it: the feeds' public endpoints, no key, every request through the server's proxy. */
function pageClient(headers: Record<string, string>): ThreatClient {
  return new ThreatClient(
    {
      sources: ['feed_otx', 'feed_urls'],
      apiKeys: {
        feed_otx: { endpoint: emulator.endpoints.feed_otx },
        feed_urls: { endpoint: emulator.endpoints.feed_urls },
      },
      security: { enforceHttps: false },
      warninglists: { builtin: false },
      performance: { retryAttempts: 0 },
      caching: { enabled: false },
      browser: { corsProxy: `${base}/api/v1/proxy/`, proxy: { headers, addsKeys: true } },
    },
    { env: false, logger: silentLogger },
  );
}

describe("a client with browser.corsProxy at the server's feed proxy", () => {
  it('scans through it: the proxy adds the key, and both feeds answer', async () => {
    const page = pageClient({ authorization: `Bearer ${TOKEN}` });
    emulator.resetCounters();
    try {
      const result = await page.scout(IP);
      expect(result.results.map((r) => [r.feed, r.status, r.verdict])).toEqual([
        ['feed_otx', 'ok', 'malicious'],
        ['feed_urls', 'ok', 'malicious'],
      ]);
      const otx = emulator.requests.filter((r) => r.feed === 'feed_otx');
      expect(otx).toHaveLength(1);
      // The key the server holds reached the feed; the page's stand-in did not.
      expect(otx[0]?.headers['x-otx-api-key']).toBe(OTX_KEY);
      const urlhaus = emulator.requests.filter((r) => r.feed === 'feed_urls');
      expect(urlhaus[0]?.method).toBe('POST');
      expect(urlhaus[0]?.body).toBe(`host=${IP}`);
    } finally {
      await page.stop();
    }
  });

  it('without its credentials the proxy refuses, and no feed is asked', async () => {
    const page = pageClient({});
    emulator.resetCounters();
    try {
      const result = await page.scout(IP);
      expect(result.results.map((r) => r.status)).toEqual(['auth_error', 'auth_error']);
      expect(emulator.count()).toBe(0);
    } finally {
      await page.stop();
    }
  });
});
