import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Behaviour,
  type FeedEmulator,
  FIXTURE_REFERENCE_TIMES,
  startFeedEmulator,
} from '@threatlib/feed-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import { parseIndicator } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';
import { DOMAIN, IPV4, KEY, MD5, SHA256, URL_ } from '../test-support/urlhaus-values.js';
import type { FeedLookupContext, FeedLookupResult } from './feed.js';
import { urlhausFeed } from './urlhaus.js';

let emu: FeedEmulator;
let http: HttpClient;
/** Every result a test produced, checked at the end: URLhaus never says clean, so none may read clean. */
const seen: FeedLookupResult[] = [];

// A stand-in server for answers the emulator has no behaviour for (recorded fixtures, refusals).
let stub: Server;
let stubEndpoint: string;
let stubAnswer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' };

beforeAll(async () => {
  // The answers as recorded, so their dates can be asserted exactly.
  emu = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_urls });
  http = createHttpClient();
  stub = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(stubAnswer.status, { 'content-type': 'application/json', ...stubAnswer.headers });
      res.end(stubAnswer.body);
    });
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubEndpoint = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await http.close();
  await emu.close();
  stub.closeAllConnections();
  await new Promise<void>((resolve) => stub.close(() => resolve()));
});

beforeEach(() => emu.reset());

function context(overrides: Partial<FeedLookupContext> = {}): FeedLookupContext {
  return {
    signal: new AbortController().signal,
    endpoint: emu.endpoints.feed_urls,
    http,
    options: {},
    includeRaw: false,
    logger: silentLogger,
    ...overrides,
  };
}

async function ask(value: string, behaviour?: Behaviour, overrides: Partial<FeedLookupContext> = {}) {
  if (behaviour !== undefined) emu.script(parseIndicator(value).value, behaviour);
  const result = await urlhausFeed.lookup(parseIndicator(value), context(overrides));
  seen.push(result);
  expect(JSON.stringify(result)).not.toContain(KEY);
  return result;
}

function lastRequest() {
  const request = emu.requests.at(-1);
  if (!request) throw new Error('the emulator saw no request');
  return request;
}

describe('urlhausFeed', () => {
  it('declares the URLhaus feed', () => {
    expect(urlhausFeed).toMatchObject({
      specificationVersion: 'v1',
      id: 'feed_urls',
      name: 'URLhaus (abuse.ch)',
      supportedTypes: ['ipv4', 'domain', 'url', 'md5', 'sha256'],
      requiresKey: false,
      defaultEndpoint: 'https://urlhaus-api.abuse.ch/v1',
    });
  });

  describe.each([
    ['an IPv4 address', IPV4],
    ['a domain', DOMAIN],
  ])('for %s', (_what, host) => {
    it('posts the host form to /host/, without an Auth-Key when none is configured', async () => {
      await ask(host, 'malicious');
      const request = lastRequest();
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/host/');
      expect(request.url).toBe('/urlhaus/v1/host/');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['auth-key']).toBeUndefined();
      expect(request.body).toBe(`host=${host}`);
      expect(request.indicator).toBe(host);
    });

    it('sends the Auth-Key header when a key is configured', async () => {
      await ask(host, 'malicious', { apiKey: KEY });
      expect(lastRequest().headers['auth-key']).toBe(KEY);
    });

    it('reads a host with a URL online now as malicious, score 1', async () => {
      const result = await ask(host, 'malicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 1,
        categories: ['malware_download'],
        tags: ['elf', 'Mozi'],
        malwareFamilies: [],
        firstSeen: '2024-02-09T13:41:05.000Z',
        lastSeen: '2024-02-09T13:43:18.000Z',
        references: [
          `https://urlhaus.abuse.ch/host/${host}/`,
          'https://urlhaus.abuse.ch/url/2758916/',
          'https://urlhaus.abuse.ch/url/2758913/',
        ],
      });
      expect(result.evidence).toEqual([
        'URLhaus (abuse.ch) lists 2 malware URLs on this host; 1 is online now.',
        'It is also listed on Spamhaus DBL (abused_legit_malware) and SURBL.',
      ]);
      expect(result.raw).toBeUndefined();
    });

    it('reads a host whose URLs are all offline as malicious, score 0.7, naming the last sighting', async () => {
      const result = await ask(host, 'suspicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 0.7,
        categories: ['malware_download'],
        tags: ['zip', 'Pikabot'],
        firstSeen: '2024-01-16T10:12:40.000Z',
        lastSeen: '2024-01-17T08:02:41.000Z',
      });
      expect(result.evidence).toEqual([
        'URLhaus (abuse.ch) lists 2 malware URLs on this host, none online now; the newest was added 2024-01-17 08:02:41 UTC.',
      ]);
    });
  });

  describe('for a URL', () => {
    it('posts the url form to /url/, percent-encoded', async () => {
      await ask(URL_, 'malicious', { apiKey: KEY });
      const request = lastRequest();
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/url/');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['auth-key']).toBe(KEY);
      expect(request.body).toBe(`url=${encodeURIComponent(URL_)}`);
      expect(new URLSearchParams(request.body).get('url')).toBe(URL_);
      expect(request.indicator).toBe(URL_);
    });

    it('reads a URL online now as malicious, score 1, with the payload signature as malware family', async () => {
      const result = await ask(URL_, 'malicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 1,
        categories: ['malware_download'],
        tags: ['elf', 'Mozi'],
        malwareFamilies: ['Mozi'],
        firstSeen: '2024-02-09T13:43:18.000Z',
        references: ['https://urlhaus.abuse.ch/url/2758916/'],
      });
      expect(result.lastSeen).toBeUndefined();
      expect(result.evidence).toEqual([
        'URLhaus (abuse.ch) lists this URL as a malware source (malware_download) and it is online now.',
        'It served payloads identified as Mozi.',
      ]);
    });

    it('reads an offline URL as malicious, score 0.7, with the date it was last online', async () => {
      const result = await ask(URL_, 'suspicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 0.7,
        firstSeen: '2024-01-17T08:02:41.000Z',
        lastSeen: '2024-01-19T21:15:09.000Z',
      });
      expect(result.evidence[0]).toBe(
        'URLhaus (abuse.ch) lists this URL as a malware source (malware_download); it is offline now, last seen online 2024-01-19 21:15:09 UTC.',
      );
    });
  });

  describe.each([
    ['an MD5 hash', MD5, 'md5_hash'],
    ['a SHA-256 hash', SHA256, 'sha256_hash'],
  ])('for %s', (_what, hash, field) => {
    it(`posts the ${field} form to /payload/`, async () => {
      await ask(hash, 'malicious');
      const request = lastRequest();
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/payload/');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request.headers.accept).toBe('application/json');
      expect(request.body).toBe(`${field}=${hash}`);
      expect(request.indicator).toBe(hash);
    });

    it('reads a known payload as malicious, score 1, with its signature as malware family', async () => {
      const result = await ask(hash, 'malicious');
      const sha256 = hash.length === 64 ? hash : '0c415dd718e3b3728707d579cf8214f54c2942e964975a5f925e0b82fea644b4';
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 1,
        categories: [],
        tags: [],
        malwareFamilies: ['AgentTesla'],
        firstSeen: '2024-02-09T11:09:23.000Z',
        lastSeen: '2024-02-10T08:01:52.000Z',
        references: [
          `https://urlhaus.abuse.ch/browse.php?search=${sha256}`,
          'https://urlhaus.abuse.ch/url/2758930/',
          'https://urlhaus.abuse.ch/url/2758101/',
        ],
      });
      expect(result.evidence).toEqual([
        'URLhaus (abuse.ch) knows this exe file as a malware payload identified as AgentTesla, served from 2 URLs.',
        'VirusTotal, as reported by URLhaus: 45 / 70 engines detect it.',
      ]);
    });
  });

  describe.each([
    ['ipv4', IPV4],
    ['domain', DOMAIN],
    ['url', URL_],
    ['md5', MD5],
    ['sha256', SHA256],
  ])('%s answers that are not a verdict', (_type, value) => {
    it.each(['not_found', 'clean'] as const)('%s: no_results is not_found, never clean', async (behaviour) => {
      const result = await ask(value, behaviour);
      expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown', score: 0, references: [] });
      expect(result.evidence).toEqual([
        'URLhaus (abuse.ch) has no record of it (query_status no_results); it only lists known malware sources.',
      ]);
    });

    it('an unknown Auth-Key (HTTP 403, unknown_auth_key) is an auth_error that never repeats the key', async () => {
      const result = await ask(value, undefined, { apiKey: 'invalid-key' });
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0 });
      expect(result.error).toEqual({
        message: 'URLhaus (abuse.ch) refused the Auth-Key: query_status unknown_auth_key (HTTP 403)',
        statusCode: 403,
      });
      expect(JSON.stringify(result)).not.toContain('invalid-key');
    });

    it('a wrong shape is an error naming the field', async () => {
      const result = await ask(value, 'wrong_shape');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error?.message).toMatch(/^feed_urls sent a response of the wrong shape: /);
    });
  });

  describe('failures', () => {
    it('HTTP 401 without a key is an auth_error', async () => {
      const result = await ask(IPV4, 'unauthorized');
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0 });
      expect(result.error?.statusCode).toBe(401);
      expect(result.error?.message).toContain('unknown_auth_key');
    });

    it('HTTP 403 without a query_status is an auth_error', async () => {
      const result = await ask(DOMAIN, 'forbidden', { apiKey: KEY });
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0 });
      expect(result.error).toEqual({
        message: 'the API key for feed_urls is invalid or lacks permission (HTTP 403)',
        statusCode: 403,
      });
    });

    it('HTTP 429 is rate_limited with the wait from Retry-After', async () => {
      const result = await ask(URL_, 'rate_limited');
      expect(result).toMatchObject({ status: 'rate_limited', verdict: 'unknown', score: 0 });
      expect(result.error).toMatchObject({ statusCode: 429, retryAfterMs: 60_000 });
    });

    it('HTTP 500 is an error', async () => {
      const result = await ask(MD5, 'server_error');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error).toEqual({ message: 'feed_urls answered HTTP 500 (server error)', statusCode: 500 });
    });

    it('a body that is not JSON is an error', async () => {
      const result = await ask(SHA256, 'malformed');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error?.message).toMatch(/^feed_urls sent a body that is not JSON/);
    });

    it('lets a timeout propagate as HttpError for the client to report', async () => {
      emu.script(IPV4, 'hang');
      await expect(
        urlhausFeed.lookup(parseIndicator(IPV4), context({ signal: AbortSignal.timeout(50) })),
      ).rejects.toSatisfy((error: unknown) => HttpError.isInstance(error));
    });

    it.each(['ipv6', 'sha1', 'email'] as const)('%s is unsupported and never sent', async (type) => {
      const value = { ipv6: '2001:db8::23', sha1: '3395856ce81f2b7382dee72602f798b642f14140', email: 'a@example.com' }[
        type
      ];
      const before = emu.count('feed_urls');
      const result = await ask(value);
      expect(result).toMatchObject({ status: 'unsupported', verdict: 'unknown', score: 0 });
      expect(result.error?.message).toBe(
        `URLhaus (abuse.ch) cannot look up ${type} indicators (it answers domains, IPv4 addresses, URLs, MD5 and SHA-256 hashes)`,
      );
      expect(emu.count('feed_urls')).toBe(before);
    });
  });

  describe('options', () => {
    it('returns the raw body when asked', async () => {
      const result = await ask(DOMAIN, 'malicious', { includeRaw: true });
      expect(result.raw).toMatchObject({ query_status: 'ok', host: DOMAIN, url_count: '2' });
    });

    it('accepts an endpoint with a trailing slash', async () => {
      await ask(IPV4, 'malicious', { endpoint: `${emu.endpoints.feed_urls}/` });
      expect(lastRequest().url).toBe('/urlhaus/v1/host/');
    });
  });

  describe('the emulator refuses what URLhaus refuses', () => {
    it('reports a refusal in query_status as an error naming it', async () => {
      stubAnswer = { status: 200, body: await fixture('invalid-host.json') };
      const result = await urlhausFeed.lookup(parseIndicator(DOMAIN), context({ endpoint: stubEndpoint }));
      seen.push(result);
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error).toEqual({
        message:
          'URLhaus (abuse.ch) refused the query: query_status invalid_host (it is not a host URLhaus accepts) (HTTP 200)',
        statusCode: 200,
      });
    });
  });

  describe('recorded answers', () => {
    it.each<[string, string, number, Partial<FeedLookupResult>]>([
      [
        'host-ipv4-online.json',
        '46.121.26.229',
        200,
        {
          status: 'ok',
          verdict: 'malicious',
          score: 1,
          categories: ['malware_download'],
          tags: ['elf', 'hajime'],
          firstSeen: '2019-03-20T22:22:07.000Z',
          lastSeen: '2019-03-20T22:22:11.000Z',
          references: ['https://urlhaus.abuse.ch/host/46.121.26.229/', 'https://urlhaus.abuse.ch/url/163113/'],
          // "unknown_return_code" from Spamhaus is not a listing.
          evidence: ['URLhaus (abuse.ch) lists 1 malware URL on this host; 1 is online now.'],
        },
      ],
      [
        'host-domain-listed-null-tags.json',
        'fretarget.cf',
        200,
        {
          status: 'ok',
          verdict: 'malicious',
          score: 1,
          tags: [],
          evidence: [
            'URLhaus (abuse.ch) lists 1 malware URL on this host; 1 is online now.',
            'It is also listed on Spamhaus DBL (abused_legit_malware) and SURBL.',
          ],
        },
      ],
      [
        'host-domain-offline.json',
        'gist.github.com',
        200,
        {
          status: 'ok',
          verdict: 'malicious',
          score: 0.7,
          tags: ['Pikabot', 'TA577', 'ps1', 'zip'],
          firstSeen: '2024-02-09T13:37:11.000Z',
          lastSeen: '2024-02-09T13:37:56.000Z',
          evidence: [
            'URLhaus (abuse.ch) lists 2 malware URLs on this host, none online now; the newest was added 2024-02-09 13:37:56 UTC.',
          ],
        },
      ],
      [
        'url-online.json',
        'http://46.121.26.229:33107/.i',
        200,
        {
          status: 'ok',
          verdict: 'malicious',
          score: 1,
          malwareFamilies: [],
          tags: ['elf', 'hajime'],
          firstSeen: '2019-03-20T22:22:11.000Z',
          references: ['https://urlhaus.abuse.ch/url/163113/'],
        },
      ],
      [
        'payload-sha256-null-signature.json',
        'bde429df1f93e30af80c336d375ee9a014ea8b76266092f292a76abfcce9588d',
        200,
        {
          status: 'ok',
          verdict: 'malicious',
          score: 1,
          malwareFamilies: [],
          firstSeen: '2019-03-20T19:26:32.000Z',
          lastSeen: '2019-03-21T00:04:11.000Z',
          evidence: [
            'URLhaus (abuse.ch) knows this file as a malware payload, served from 1 URL.',
            'VirusTotal, as reported by URLhaus: 32 / 68 engines detect it.',
          ],
        },
      ],
      [
        'payload-md5-signature.json',
        '99ad3000abb169e60844a0689dbe9f8c',
        200,
        {
          status: 'ok',
          verdict: 'malicious',
          score: 1,
          malwareFamilies: ['Gozi'],
          firstSeen: '2019-08-10T11:09:23.000Z',
          references: [
            'https://urlhaus.abuse.ch/browse.php?search=0c415dd718e3b3728707d579cf8214f54c2942e964975a5f925e0b82fea644b4',
            'https://urlhaus.abuse.ch/url/223701/',
          ],
          evidence: [
            'URLhaus (abuse.ch) knows this exe file as a malware payload identified as Gozi, served from 1 URL.',
          ],
        },
      ],
      ['no-results.json', 'clean.example.org', 200, { status: 'not_found', verdict: 'unknown', score: 0 }],
      ['unknown-auth-key.json', '203.0.113.9', 403, { status: 'auth_error', verdict: 'unknown', score: 0 }],
      ['invalid-host.json', 'example.org', 200, { status: 'error', verdict: 'unknown', score: 0 }],
    ])('%s', async (file, value, status, expected) => {
      stubAnswer = { status, body: await fixture(file) };
      const result = await urlhausFeed.lookup(parseIndicator(value), context({ endpoint: stubEndpoint }));
      seen.push(result);
      expect(result).toMatchObject(expected);
    });
  });

  it('never read clean in any of the tests above', () => {
    expect(seen.length).toBeGreaterThan(50);
    expect(seen.filter((result) => result.verdict === 'clean')).toEqual([]);
  });
});

function fixture(name: string): Promise<string> {
  return readFile(new URL(`./__fixtures__/urlhaus/${name}`, import.meta.url), 'utf8');
}
