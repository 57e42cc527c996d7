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
import type { FeedLookupContext, FeedLookupResult } from './feed.js';
import { otxFeed } from './otx.js';

const KEY = 'otx-test-key-0123456789abcdef0123456789abcdef';
const IPV4 = '198.51.100.44';
const IPV6 = '2001:db8::44';
const DOMAIN = 'evil-domain.net';
const SUBDOMAIN = 'cdn.evil-domain.co.uk';
const URL_ = 'http://evil-domain.net/gate.php?id=7#top';
const MD5 = '44d88612fea8a8f36de82e1278abb02f';
const SHA1 = '3395856ce81f2b7382dee72602f798b642f14140';
const SHA256 = '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f';
const SITE = 'https://otx.alienvault.com';

let emu: FeedEmulator;
let http: HttpClient;
/** Every result a test produced, with whether OTX positively said it is known good. */
const seen: { saidGood: boolean; result: FeedLookupResult }[] = [];

// A stand-in server for answers the emulator has no behaviour for (recorded fixtures, 400, 401, 404).
let stub: Server;
let stubEndpoint: string;
let stubAnswer: { status: number; body: string } = { status: 200, body: '{}' };
let stubPath = '';

beforeAll(async () => {
  // The answers as recorded, so their dates can be asserted exactly.
  emu = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_otx });
  http = createHttpClient();
  stub = createServer((req, res) => {
    stubPath = req.url ?? '';
    req.resume();
    res.writeHead(stubAnswer.status, { 'content-type': 'application/json' });
    res.end(stubAnswer.body);
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubEndpoint = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/api/v1`;
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
    apiKey: KEY,
    endpoint: emu.endpoints.feed_otx,
    http,
    options: {},
    includeRaw: false,
    logger: silentLogger,
    ...overrides,
  };
}

async function ask(value: string, behaviour?: Behaviour, overrides: Partial<FeedLookupContext> = {}) {
  if (behaviour !== undefined) emu.script(parseIndicator(value).value, behaviour);
  const result = await otxFeed.lookup(parseIndicator(value), context(overrides));
  seen.push({ saidGood: behaviour === 'clean', result });
  expect(JSON.stringify(result)).not.toContain(KEY);
  return result;
}

async function askStub(value: string, status: number, body: string, saidGood = false) {
  stubAnswer = { status, body };
  const result = await otxFeed.lookup(parseIndicator(value), context({ endpoint: stubEndpoint }));
  seen.push({ saidGood, result });
  return result;
}

function lastRequest() {
  const request = emu.requests.at(-1);
  if (!request) throw new Error('the emulator saw no request');
  return request;
}

// Each supported type, the section OTX files it under, the path segment sent and its page on the OTX site.
const TYPES: [string, string, string, string, string][] = [
  ['ipv4', IPV4, 'IPv4', IPV4, `${SITE}/indicator/ip/${IPV4}`],
  ['ipv6', IPV6, 'IPv6', IPV6, `${SITE}/indicator/ip/${encodeURIComponent(IPV6)}`],
  ['domain', DOMAIN, 'domain', DOMAIN, `${SITE}/indicator/domain/${DOMAIN}`],
  ['subdomain', SUBDOMAIN, 'hostname', SUBDOMAIN, `${SITE}/indicator/hostname/${SUBDOMAIN}`],
  ['url', URL_, 'url', encodeURIComponent(URL_), `${SITE}/indicator/url/${encodeURIComponent(URL_)}`],
  ['md5', MD5, 'file', MD5, `${SITE}/indicator/file/${MD5}`],
  ['sha1', SHA1, 'file', SHA1, `${SITE}/indicator/file/${SHA1}`],
  ['sha256', SHA256, 'file', SHA256, `${SITE}/indicator/file/${SHA256}`],
];

describe('otxFeed', () => {
  it('declares the OTX feed', () => {
    expect(otxFeed).toMatchObject({
      specificationVersion: 'v1',
      id: 'feed_otx',
      name: 'AlienVault OTX',
      supportedTypes: ['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256'],
      requiresKey: true,
      defaultEndpoint: 'https://otx.alienvault.com/api/v1',
    });
  });

  describe.each(TYPES)('for %s %s', (_type, value, section, segment, page) => {
    it(`GETs /indicators/${section}/…/general with X-OTX-API-KEY and Accept`, async () => {
      await ask(value, 'malicious');
      const request = lastRequest();
      expect(request.method).toBe('GET');
      expect(request.url).toBe(`/otx/api/v1/indicators/${section}/${segment}/general`);
      expect([...request.query.keys()]).toEqual([]);
      expect(request.headers['x-otx-api-key']).toBe(KEY);
      expect(request.headers.accept).toBe('application/json');
      expect(request.body).toBe('');
      expect(request.indicator).toBe(parseIndicator(value).value);
    });

    it('reads 7 pulses with a named adversary as malicious, score 0.9', async () => {
      const result = await ask(value, 'malicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 0.9,
        categories: [],
        tags: ['botnet', 'c2', 'mirai', 'emotet', 'scanner'],
        malwareFamilies: ['Mirai', 'Emotet'],
        firstSeen: '2023-11-02T08:14:51.412Z',
        lastSeen: '2024-02-10T06:40:12.650Z',
        references: [
          page,
          'https://blog.example-research.org/2024/02/mirai-variant-analysis/',
          `${SITE}/pulse/6543a1fb2c1d9f0a1b2c3d4e`,
          `${SITE}/pulse/65a582efc1d2e3f4a5b6c7d8`,
          `${SITE}/pulse/65badd09aa11bb22cc33dd44`,
        ],
      });
      expect(result.evidence).toEqual([
        'AlienVault OTX has 7 pulses about it, such as "Mirai botnet C2 infrastructure", "Emotet epoch 5 distribution", "Webscanners 2024-02".',
        'Pulses attribute it to TA505.',
        'Malware families named: Mirai, Emotet.',
      ]);
      expect(result.raw).toBeUndefined();
    });

    it('reads 2 pulses as suspicious, score 0.2', async () => {
      const result = await ask(value, 'suspicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'suspicious',
        score: 0.2,
        tags: ['scanner', 'honeypot'],
        malwareFamilies: [],
        firstSeen: '2023-11-02T08:14:51.412Z',
        lastSeen: '2024-02-08T10:00:00.000Z',
      });
      expect(result.evidence).toEqual([
        'AlienVault OTX has 2 pulses about it, such as "Scanning hosts seen by honeypots".',
      ]);
    });

    it('reads an allowlist entry as clean, score 0, quoting it', async () => {
      const result = await ask(value, 'clean');
      expect(result).toMatchObject({ status: 'ok', verdict: 'clean', score: 0, tags: [], references: [page] });
      expect(result.evidence).toHaveLength(1);
      expect(result.evidence[0]).toMatch(/^AlienVault OTX lists it as known good: ".+" \(whitelist\)\.$/);
    });

    it('reads no pulses as not_found, never clean', async () => {
      const result = await ask(value, 'not_found');
      expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown', score: 0, references: [page] });
      expect(result.evidence).toEqual(['No AlienVault OTX pulse mentions it.']);
    });

    it('a wrong shape is an error naming the field', async () => {
      const result = await ask(value, 'wrong_shape');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error?.message).toMatch(/^feed_otx sent a response of the wrong shape: pulse_info\.(count|pulses)/);
    });
  });

  describe('failures', () => {
    it('an invalid key (HTTP 403) is an auth_error that never repeats the key', async () => {
      const result = await ask(IPV4, undefined, { apiKey: 'invalid-key' });
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0 });
      expect(result.error).toEqual({
        message: 'the API key for feed_otx is invalid or lacks permission (HTTP 403)',
        statusCode: 403,
      });
      expect(JSON.stringify(result)).not.toContain('invalid-key');
    });

    it('HTTP 403 for lack of permission is an auth_error', async () => {
      const result = await ask(DOMAIN, 'forbidden');
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0 });
      expect(result.error?.statusCode).toBe(403);
    });

    it('HTTP 401 is an auth_error', async () => {
      const result = await askStub(IPV4, 401, '{"detail": "Authentication credentials were not provided."}');
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0 });
      expect(result.error?.statusCode).toBe(401);
    });

    it('HTTP 429 is rate_limited with the wait from Retry-After', async () => {
      const result = await ask(URL_, 'rate_limited');
      expect(result).toMatchObject({ status: 'rate_limited', verdict: 'unknown', score: 0 });
      expect(result.error).toMatchObject({ statusCode: 429, retryAfterMs: 60_000 });
    });

    it('a gateway time-out page (HTTP 504) is an error', async () => {
      const result = await ask(SHA256, 'server_error');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error).toEqual({ message: 'feed_otx answered HTTP 504 (server error)', statusCode: 504 });
    });

    it('a body that is not JSON is an error', async () => {
      const result = await ask(MD5, 'malformed');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error?.message).toMatch(/^feed_otx sent a body that is not JSON/);
    });

    it('HTTP 404 is not_found', async () => {
      const result = await askStub(SHA1, 404, await fixture('not-found.json'));
      expect(result).toMatchObject({
        status: 'not_found',
        verdict: 'unknown',
        score: 0,
        references: [`${SITE}/indicator/file/${SHA1}`],
        evidence: ['AlienVault OTX has no record of it (HTTP 404).'],
      });
    });

    it('HTTP 400 (OTX rejects the indicator) is an error, not an answer', async () => {
      const result = await askStub(URL_, 400, '{"detail": "Invalid url indicator."}');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', score: 0 });
      expect(result.error).toEqual({
        message: 'AlienVault OTX rejected the indicator as invalid for section url (HTTP 400)',
        statusCode: 400,
      });
    });

    it('without a key it sends nothing and says not_configured', async () => {
      const before = emu.count('feed_otx');
      const result = await ask(IPV4, 'malicious', { apiKey: undefined });
      expect(result).toMatchObject({ status: 'not_configured', verdict: 'unknown', score: 0 });
      expect(emu.count('feed_otx')).toBe(before);
    });

    it('lets a timeout propagate as HttpError for the client to report', async () => {
      emu.script(IPV4, 'hang');
      await expect(
        otxFeed.lookup(parseIndicator(IPV4), context({ signal: AbortSignal.timeout(50) })),
      ).rejects.toSatisfy((error: unknown) => HttpError.isInstance(error));
    });

    it('an email address is unsupported and never sent', async () => {
      const before = emu.count('feed_otx');
      const result = await ask('phisher@evil-domain.net');
      expect(result).toMatchObject({ status: 'unsupported', verdict: 'unknown', score: 0 });
      expect(emu.count('feed_otx')).toBe(before);
    });
  });

  describe('options', () => {
    it('returns the raw body when asked', async () => {
      const result = await ask(DOMAIN, 'malicious', { includeRaw: true });
      expect(result.raw).toMatchObject({ indicator: DOMAIN, pulse_info: { count: 7 } });
    });

    it('accepts an endpoint with a trailing slash', async () => {
      await ask(IPV4, 'malicious', { endpoint: `${emu.endpoints.feed_otx}/` });
      expect(lastRequest().url).toBe(`/otx/api/v1/indicators/IPv4/${IPV4}/general`);
    });
  });

  describe('the emulator refuses what OTX refuses', () => {
    const get = (path: string) =>
      http.request(`${emu.endpoints.feed_otx}${path}`, { headers: { 'x-otx-api-key': KEY } });

    it('answers an indicator that does not fit its section with HTTP 400', async () => {
      const response = await get('/indicators/IPv4/evil-domain.net/general');
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toHaveProperty('detail');
    });

    it('answers an unknown section with HTTP 404', async () => {
      const response = await get('/indicators/email/a@example.com/general');
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toEqual({ detail: 'Not found.' });
    });

    it('takes a URL sent raw as OTX does', async () => {
      const response = await get('/indicators/url/http://evil-domain.net/a/b/general');
      expect(response.status).toBe(200);
      expect(lastRequest().indicator).toBe('http://evil-domain.net/a/b');
    });
  });

  describe('recorded answers', () => {
    it('an allowlisted IP in one pulse is clean, quoting the allowlist and mentioning the pulse', async () => {
      const result = await askStub('98.136.103.23', 200, await fixture('ipv4-whitelisted-with-pulse.json'), true);
      expect(stubPath).toBe('/api/v1/indicators/IPv4/98.136.103.23/general');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'clean',
        score: 0,
        tags: [],
        references: [`${SITE}/indicator/ip/98.136.103.23`],
      });
      expect(result.evidence).toEqual([
        'AlienVault OTX lists it as known good: "contained in whitelisted prefix" (whitelist).',
        "It appears in 1 pulse, but OTX's own listing takes precedence.",
      ]);
    });

    it('an IP in no pulse, with null geo fields, is not_found', async () => {
      const result = await askStub('8.8.88.8', 200, await fixture('ipv4-no-pulses-nulls.json'));
      expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown', score: 0 });
    });

    it('a whitelisted subdomain is clean', async () => {
      const result = await askStub('otx.alienvault.com', 200, await fixture('hostname-whitelisted.json'), true);
      expect(stubPath).toBe('/api/v1/indicators/hostname/otx.alienvault.com/general');
      expect(result).toMatchObject({ status: 'ok', verdict: 'clean', score: 0 });
      expect(result.evidence).toEqual([
        'AlienVault OTX lists it as known good: "Whitelisted domain alienvault.com" (majestic), "Whitelisted domain alienvault.com" (whitelist).',
      ]);
    });

    it('a file hash in no pulse is not_found', async () => {
      const result = await askStub(SHA1, 200, await fixture('file-sha1-no-pulses.json'));
      expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown', score: 0 });
    });

    it('a URL in no pulse is not_found', async () => {
      const url = 'http://www.fotoidea.com/sport/4x4_san_ponso/slides/IMG_0068.html';
      const result = await askStub(url, 200, await fixture('url-no-pulses.json'));
      expect(stubPath).toBe(`/api/v1/indicators/url/${encodeURIComponent(url)}/general`);
      expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown', score: 0 });
    });

    it('six pulses, families as objects and strings, and an adversary make it malicious', async () => {
      const result = await askStub('update-check.example-cdn.top', 200, await fixture('hostname-malicious.json'));
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 0.8,
        tags: ['emotet', 'heodo', 'c2', 'malspam', 'loader', 'phishing'],
        malwareFamilies: ['Emotet', 'IcedID', 'Bokbot'],
        firstSeen: '2023-02-21T13:05:28.771Z',
        lastSeen: '2023-04-09T00:01:04.118Z',
        references: [
          `${SITE}/indicator/hostname/update-check.example-cdn.top`,
          'https://www.example-threat-report.org/emotet-epoch-4',
          `${SITE}/pulse/63f4c1d8a2b5e0f9c7d31a2b`,
          `${SITE}/pulse/640b7e2c9a1f4d6b8e0c2a13`,
          `${SITE}/pulse/6421a07fd4e95b1c3a7f0e62`,
        ],
      });
      expect(result.evidence).toEqual([
        'AlienVault OTX has 6 pulses about it, such as "Emotet Epoch 4 C2 and distribution", "Malspam loader infrastructure March 2023", "Phishing kit hosting".',
        'Pulses attribute it to TA542.',
        'Malware families named: Emotet, IcedID, Bokbot.',
      ]);
    });

    it('an accepted false-positive report makes it clean', async () => {
      const result = await askStub(
        'cdn-assets.example.net',
        200,
        await fixture('domain-false-positive-accepted.json'),
        true,
      );
      expect(result).toMatchObject({ status: 'ok', verdict: 'clean', score: 0 });
      expect(result.evidence).toEqual([
        'AlienVault OTX accepted a false-positive report for it on 2021-04-01.',
        "It appears in 2 pulses, but OTX's own listing takes precedence.",
      ]);
    });

    it('a pending false-positive report is not a verdict: the pulses decide', async () => {
      const result = await askStub('cdn-assets.example.net', 200, await fixture('domain-false-positive-pending.json'));
      expect(result).toMatchObject({ status: 'ok', verdict: 'suspicious', score: 0.2 });
    });

    it('the 404 body is not_found', async () => {
      const result = await askStub(MD5, 404, await fixture('not-found.json'));
      expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown' });
    });
  });

  it('never read clean unless OTX listed it as known good', () => {
    expect(seen.length).toBeGreaterThan(50);
    expect(seen.filter(({ saidGood, result }) => result.verdict === 'clean' && !saidGood)).toEqual([]);
    expect(seen.filter(({ saidGood, result }) => saidGood && result.verdict !== 'clean')).toEqual([]);
  });
});

function fixture(name: string): Promise<string> {
  return readFile(new URL(`./__fixtures__/otx/${name}`, import.meta.url), 'utf8');
}
