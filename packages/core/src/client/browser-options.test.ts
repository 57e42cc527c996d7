// The browser options of the client, under Node.js (issue 24): `browser.corsProxy` (every feed request through a
// cors-anywhere proxy), `browser.fallbackMode` (error, offline, demo), `browser.secureContext` and `storage`.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ThreatConfig } from '../config/schema.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { InsecureContextError } from '../errors/insecure-context-error.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { ThreatClient } from './threat-client.js';

const START = Date.parse('2026-12-01T00:00:00Z');
const OTX_KEY = 'otx-key-browser-options-0123456789';
const MALICIOUS_IP = '198.51.100.77';

interface Proxied {
  target: string;
  method: string;
  headers: IncomingHttpHeaders;
}

/** A loopback cors-anywhere proxy: `GET|POST /<full URL>` asks that URL and passes the answer back. */
async function corsAnywhere(): Promise<{ base: string; seen: Proxied[]; server: Server }> {
  const seen: Proxied[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const target = (request.url ?? '').slice(1);
      seen.push({ target, method: request.method ?? '', headers: request.headers });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'x-proxy-token', 'content-length'].includes(name)) {
          headers[name] = value;
        }
      }
      try {
        const answer = await fetch(target, {
          method: request.method ?? 'GET',
          headers,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      } catch {
        response.writeHead(502).end('unreachable');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen, server };
}

let emulator: FeedEmulator;
beforeAll(async () => {
  emulator = await startFeedEmulator();
  emulator.script(MALICIOUS_IP, 'malicious');
});
afterAll(async () => {
  await emulator.close();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** An address where nothing listens: a feed there cannot be reached. */
const UNREACHABLE = 'http://127.0.0.1:9/api/v1';

function config(extra: Partial<ThreatConfig> = {}, endpoint = emulator.endpoints.feed_otx): ThreatConfig {
  return {
    sources: ['feed_otx'],
    apiKeys: { feed_otx: { key: OTX_KEY, endpoint, timeout: 2000 } },
    security: { enforceHttps: false },
    warninglists: { builtin: false },
    performance: { retryAttempts: 0, rateLimit: { enabled: false } },
    ...extra,
  };
}

function clientOf(configuration: ThreatConfig, clock = new ManualClock(START)): ThreatClient {
  return new ThreatClient(configuration, { env: false, logger: silentLogger, clock });
}

describe('browser.corsProxy', () => {
  it('sends every feed request to the proxy, the full feed URL appended, with the proxy headers', async () => {
    const proxy = await corsAnywhere();
    const client = clientOf(
      config({ browser: { corsProxy: proxy.base, proxy: { headers: { 'x-proxy-token': 'proxy-token' } } } }),
    );
    try {
      const result = await client.scout(MALICIOUS_IP);
      expect(result.results[0]).toMatchObject({ feed: 'feed_otx', status: 'ok', verdict: 'malicious' });
      expect(proxy.seen).toHaveLength(1);
      expect(proxy.seen[0]?.target).toBe(`${emulator.endpoints.feed_otx}/indicators/IPv4/${MALICIOUS_IP}/general`);
      expect(proxy.seen[0]?.headers['x-proxy-token']).toBe('proxy-token');
      // The page's own key goes through a generic proxy, as it would to the feed.
      expect(proxy.seen[0]?.headers['x-otx-api-key']).toBe(OTX_KEY);
    } finally {
      await client.stop();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });

  it('with proxy.addsKeys, asks a feed that needs a key without one (the proxy adds it)', async () => {
    const proxy = await corsAnywhere();
    const client = clientOf(
      config({
        apiKeys: { feed_otx: { endpoint: emulator.endpoints.feed_otx } },
        browser: { corsProxy: proxy.base, proxy: { addsKeys: true } },
      }),
    );
    try {
      expect(client.warnings.map((w) => w.code)).not.toContain('MISSING_API_KEY');
      expect(client.feedStatus()[0]?.configured).toBe(true);
      const result = await client.scout(MALICIOUS_IP);
      // This proxy adds no key: the emulator refuses the request, which shows it was sent.
      expect(result.results[0]?.status).toBe('auth_error');
      expect(proxy.seen).toHaveLength(1);
      expect(proxy.seen[0]?.headers['x-otx-api-key']).toBeUndefined();
    } finally {
      await client.stop();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });

  it.each([
    ['http://proxy.example/', /https:\/\/ URL \(http:\/\/ only on localhost/],
    ['https://proxy.example', /must end in "\/"/],
    ['https://user:secret@proxy.example/', /may not carry user information/],
    ['https://proxy.example/?url=', /may not have a query or fragment/],
    ['not a url', /expected an absolute URL ending in "\/"/],
  ])('refuses %s', (corsProxy, reason) => {
    expect(() => clientOf(config({ browser: { corsProxy } }))).toThrow(ConfigurationError);
    expect(() => clientOf(config({ browser: { corsProxy } }))).toThrow(reason);
  });

  it('refuses proxy options without a corsProxy', () => {
    expect(() => clientOf(config({ browser: { proxy: { addsKeys: true } } }))).toThrow(
      'browser.proxy: set browser.corsProxy too',
    );
  });
});

describe('browser.fallbackMode', () => {
  it('error (the default): a feed that cannot be reached is an error, and the verdict is never clean', async () => {
    const client = clientOf(config({ browser: { fallbackMode: 'error' } }, UNREACHABLE));
    const result = await client.correlate(MALICIOUS_IP);
    expect(result.results.map((r) => [r.status, r.source])).toEqual([['error', undefined]]);
    expect(result.verdict).not.toBe('clean');
    expect(result.fallback).toBeUndefined();
    await client.stop();
  });

  it('offline: answers the verdict a feed gave before, marked stored with when, once the feed is down', async () => {
    const clock = new ManualClock(START);
    const own = await startFeedEmulator();
    own.script(MALICIOUS_IP, 'malicious');
    const client = clientOf(config({ browser: { fallbackMode: 'offline' } }, own.endpoints.feed_otx), clock);
    try {
      const first = await client.scout(MALICIOUS_IP);
      expect(first.results[0]).toMatchObject({ status: 'ok', verdict: 'malicious', cached: false });
      expect(first.results[0]?.source).toBeUndefined();
      // The feed goes down, and the verdict cache has expired: the lookup reaches for the feed and fails.
      await own.close();
      await clock.advance(2 * 24 * 3_600_000);
      const answer = await client.correlate(MALICIOUS_IP);
      expect(answer.results[0]).toMatchObject({
        feed: 'feed_otx',
        status: 'ok',
        verdict: 'malicious',
        cached: true,
        source: 'stored',
        lookedUpAt: '2026-12-01T00:00:00.000Z',
      });
      expect(answer.results[0]?.evidence[0]).toMatch(/^stored verdict of feed_otx from 2026-12-01T00:00:00.000Z/);
      expect(answer.fallback).toEqual({ mode: 'offline', feeds: ['feed_otx'] });
    } finally {
      await client.stop();
    }
  });

  it('offline: says so when no verdict is stored, and never answers clean', async () => {
    const client = clientOf(config({ browser: { fallbackMode: 'offline' } }, UNREACHABLE));
    const result = await client.correlate('198.51.100.78');
    await client.stop();
    expect(result.results[0]?.status).toBe('error');
    expect(result.results[0]?.error?.message).toMatch(
      /offline \(browser\.fallbackMode\): no stored verdict of feed_otx/,
    );
    expect(result.verdict).not.toBe('clean');
    expect(result.fallback).toBeUndefined();
  });

  it('offline needs the cache', () => {
    expect(() => clientOf(config({ browser: { fallbackMode: 'offline' }, caching: { enabled: false } }))).toThrow(
      'browser.fallbackMode: "offline" answers from the verdicts kept in the cache',
    );
  });

  it('demo: with no key and no network, answers from the demo data set, every result marked demo', async () => {
    const client = clientOf({
      sources: ['feed_otx', 'feed_abuse'],
      warninglists: { builtin: false },
      browser: { fallbackMode: 'demo' },
    });
    const result = await client.correlate('198.51.100.23');
    expect(result.results.map((r) => [r.feed, r.status, r.verdict, r.source])).toEqual([
      ['feed_otx', 'ok', 'malicious', 'demo'],
      ['feed_abuse', 'ok', 'malicious', 'demo'],
    ]);
    expect(result.results[0]?.evidence[0]).toMatch(/demo data, not a live answer/);
    expect(result.fallback).toEqual({ mode: 'demo', feeds: ['feed_otx', 'feed_abuse'] });
    // An indicator the set does not hold keeps its failure: never clean.
    const other = await client.correlate('198.51.100.99');
    expect(other.results.map((r) => [r.status, r.source])).toEqual([
      ['not_configured', undefined],
      ['not_configured', undefined],
    ]);
    expect(other.results[0]?.error?.message).toMatch(/demo data set has no answer/);
    expect(other.verdict).not.toBe('clean');
    await client.stop();
  });
});

describe('browser.secureContext', () => {
  it('is met under Node.js (WebCrypto is always there)', () => {
    expect(() => clientOf(config({ browser: { secureContext: true } }))).not.toThrow();
  });

  it('refuses to make a client outside a secure context, saying why', () => {
    vi.stubGlobal('isSecureContext', false);
    vi.stubGlobal('location', { origin: 'http://intranet.example', protocol: 'http:' });
    expect(() => clientOf(config({ browser: { secureContext: true } }))).toThrow(InsecureContextError);
    expect(() => clientOf(config())).toThrow(/is not a secure context.*WebCrypto/);
    // Turned off, it checks nothing.
    expect(() => clientOf(config({ browser: { secureContext: false } }))).not.toThrow();
  });
});

describe('storage', () => {
  it('memory works under Node.js', async () => {
    const client = clientOf(config({ storage: { type: 'memory', dbName: 'threats', version: 2 } }));
    expect((await client.scout(MALICIOUS_IP)).results[0]?.verdict).toBe('malicious');
    await client.stop();
  });

  it.each([
    ['indexeddb', /storage\.type: "indexeddb" needs a browser: this runtime has no IndexedDB/],
    ['localstorage', /storage\.type: "localstorage" needs a browser: this runtime has no localStorage/],
  ] as const)('%s under Node.js says it needs a browser', (type, message) => {
    expect(() => clientOf(config({ storage: { type } }))).toThrow(message);
  });

  it('localstorage keeps verdicts and alerts there (encrypted with encryptionKey), and offline reads them after a reload', async () => {
    const storage = new MapStorage();
    vi.stubGlobal('localStorage', storage);
    const clock = new ManualClock(START);
    const stored = {
      storage: { type: 'localstorage', dbName: 'page', encryptionKey: 'a page passphrase' },
      browser: { fallbackMode: 'offline' },
    } as const;
    const page = clientOf(config({ ...stored, strategy: 'aggressive' }), clock);
    const first = await page.correlate(MALICIOUS_IP);
    expect(first.isThreat).toBe(true);
    await page.alerts.settled();
    expect((await page.alerts.list()).items).toHaveLength(1);
    await page.stop();
    const dump = [...storage.map.entries()].flat().join('\n');
    expect(dump).toContain('page/cache/');
    expect(dump).toContain('page/alerts/');
    expect(dump).not.toContain(MALICIOUS_IP);
    expect(dump).not.toContain(OTX_KEY);

    // A reload: a new client over the same storage, its feed out of reach.
    await clock.advance(2 * 24 * 3_600_000);
    const reloaded = clientOf(config({ ...stored, strategy: 'aggressive' }, UNREACHABLE), clock);
    const answer = await reloaded.scout(MALICIOUS_IP);
    expect((await reloaded.alerts.list()).items).toHaveLength(1);
    await reloaded.stop();
    // The endpoint differs, the stored verdict is the feed's about the indicator: offline answers it.
    expect(answer.results[0]).toMatchObject({ status: 'ok', verdict: 'malicious', source: 'stored' });
  });

  it('refuses a browser storage with another verdict cache back end', () => {
    vi.stubGlobal('localStorage', new MapStorage());
    expect(() =>
      clientOf(config({ storage: { type: 'localstorage' }, caching: { type: 'file', enabled: true } })),
    ).toThrow('caching.type: "file" cannot be used with storage.type "localstorage"');
  });
});

/** A `localStorage` stand-in over a Map (Node.js has none without a flag). */
class MapStorage {
  readonly map = new Map<string, string>();
  get length(): number {
    return this.map.size;
  }
  key(index: number): string | null {
    return [...this.map.keys()][index] ?? null;
  }
  getItem(key: string): string | null {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.map.set(key, String(value));
  }
  removeItem(key: string): void {
    this.map.delete(key);
  }
}
