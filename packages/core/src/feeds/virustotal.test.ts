import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FeedEmulator, FIXTURE_REFERENCE_TIMES, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { parseIndicator } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';
import { CASES, GUI, isFile, KEY, MD5, SHA256, URL_ID } from '../test-support/virustotal-cases.js';
import type { FeedLookupContext, FeedLookupResult } from './feed.js';
import { virustotalFeed } from './virustotal.js';

const LAST_ANALYSIS = '2024-06-01T00:00:00.000Z';

let emu: FeedEmulator;
let http: HttpClient;
/** A tiny server answering whatever `served` holds, for fixtures and answers the emulator does not give. */
let fixtureServer: Server;
let fixtureEndpoint: string;
let served: { status: number; body: string; contentType?: string } = { status: 200, body: '{}' };
/** Every result any test produced, to check invariants that must hold for all of them. */
const seen: { label: string; result: FeedLookupResult }[] = [];

beforeAll(async () => {
  // The answers as recorded, so their dates can be asserted exactly.
  emu = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_scan });
  http = createHttpClient();
  fixtureServer = createServer((_req, res) => {
    res.writeHead(served.status, { 'content-type': served.contentType ?? 'application/json' });
    res.end(served.body);
  });
  await new Promise<void>((resolve) => fixtureServer.listen(0, '127.0.0.1', resolve));
  fixtureEndpoint = `http://127.0.0.1:${(fixtureServer.address() as AddressInfo).port}/api/v3`;
});

afterAll(async () => {
  await http.close();
  await emu.close();
  fixtureServer.closeAllConnections();
  await new Promise<void>((resolve) => fixtureServer.close(() => resolve()));
});

beforeEach(() => {
  emu.reset();
});

function context(overrides: Partial<FeedLookupContext> = {}): FeedLookupContext {
  return {
    signal: new AbortController().signal,
    apiKey: KEY,
    endpoint: emu.endpoints.feed_scan,
    http,
    options: {},
    includeRaw: false,
    logger: silentLogger,
    ...overrides,
  };
}

async function lookup(input: string, overrides: Partial<FeedLookupContext> = {}): Promise<FeedLookupResult> {
  const result = await virustotalFeed.lookup(parseIndicator(input), context(overrides));
  seen.push({ label: input, result });
  return result;
}

async function lookupFixture(input: string, fixture: string, status = 200): Promise<FeedLookupResult> {
  served = { status, body: await readFile(new URL(`./__fixtures__/virustotal/${fixture}`, import.meta.url), 'utf8') };
  const result = await virustotalFeed.lookup(parseIndicator(input), context({ endpoint: fixtureEndpoint }));
  seen.push({ label: fixture, result });
  return result;
}

describe('virustotalFeed', () => {
  it('describes itself as the feed_scan feed', () => {
    expect(virustotalFeed).toMatchObject({
      specificationVersion: 'v1',
      id: 'feed_scan',
      name: 'VirusTotal',
      requiresKey: true,
      defaultEndpoint: 'https://www.virustotal.com/api/v3',
    });
    expect([...virustotalFeed.supportedTypes].sort()).toEqual([
      'domain',
      'ipv4',
      'ipv6',
      'md5',
      'sha1',
      'sha256',
      'url',
    ]);
  });

  describe.each(CASES)('$type lookups', (c) => {
    it('send exactly the request the API expects', async () => {
      emu.script(c.indicator, 'clean');
      await lookup(c.input);
      const request = emu.requests.at(-1);
      expect(request?.method).toBe('GET');
      expect(request?.url).toBe(`/virustotal/api/v3${c.path}`);
      expect(request?.path).toBe(c.path);
      expect([...(request?.query ?? [])]).toEqual([]);
      expect(request?.headers['x-apikey']).toBe(KEY);
      expect(request?.headers.accept).toBe('application/json');
      expect(request?.headers['content-type']).toBeUndefined();
      expect(request?.body).toBe('');
      expect(request?.indicator).toBe(c.indicator);
      expect(emu.count('feed_scan', c.indicator)).toBe(1);
    });

    it('reads a malicious answer', async () => {
      emu.script(c.indicator, 'malicious');
      const result = await lookup(c.input);
      expect(result.status).toBe('ok');
      expect(result.verdict).toBe('malicious');
      expect(result.score).toBe(1);
      expect(result.lastSeen).toBe(LAST_ANALYSIS);
      expect(result.references).toEqual([c.page]);
      if (isFile(c)) {
        expect(result.evidence).toEqual([
          '24 of 29 engines flag it malicious',
          "VirusTotal's suggested threat label: trojan.emotet/heodo",
          'Community reputation -34 (votes: 0 harmless, 6 malicious)',
        ]);
        expect(result.malwareFamilies).toEqual(['emotet', 'heodo', 'kryptik']);
        expect(result.categories).toEqual(['trojan', 'banker']);
        expect(result.tags).toEqual(['peexe', 'checks-user-input', 'detect-debug-environment']);
        // The first submission, not the compile time the binary claims (2010).
        expect(result.firstSeen).toBe('2024-01-01T00:00:00.000Z');
      } else {
        expect(result.evidence).toEqual([
          '12 of 30 engines flag it malicious, 1 suspicious',
          'Engines label it malicious (4), malware (4), phishing (4)',
          'Community reputation -34 (votes: 0 harmless, 6 malicious)',
        ]);
        expect(result.malwareFamilies).toEqual([]);
      }
      if (c.type === 'domain') {
        expect(result.categories).toEqual(['phishing and other frauds', 'phishing and fraud', 'phishing']);
        expect(result.tags).toEqual(['dga']);
        expect(result.firstSeen).toBe('2024-05-01T00:00:00.000Z');
      }
      if (c.type === 'url') {
        expect(result.categories).toEqual(['phishing and other frauds', 'phishing and fraud']);
        expect(result.tags).toEqual(['external-resources', 'iframes']);
        expect(result.firstSeen).toBe('2024-01-01T00:00:00.000Z');
      }
      if (c.type === 'ipv4' || c.type === 'ipv6') {
        expect(result.categories).toEqual([]);
        expect(result.tags).toEqual(['suspicious-udp']);
        expect(result.firstSeen).toBeUndefined();
      }
      expect(result.raw).toBeUndefined();
      expect(result.error).toBeUndefined();
    });

    it('reads a suspicious answer', async () => {
      emu.script(c.indicator, 'suspicious');
      const result = await lookup(c.input);
      expect(result.status).toBe('ok');
      expect(result.verdict).toBe('suspicious');
      expect(result.score).toBeCloseTo(0.3, 10);
      expect(result.references).toEqual([c.page]);
      expect(result.lastSeen).toBe(LAST_ANALYSIS);
      if (isFile(c)) {
        expect(result.evidence).toEqual(['1 of 29 engines flag it malicious, 1 suspicious']);
        // Neither detection name carries a family, only generic words and a hash-like suffix.
        expect(result.malwareFamilies).toEqual([]);
      } else {
        expect(result.evidence).toEqual([
          '1 of 30 engines flag it malicious, 1 suspicious',
          'Engines label it malicious (1), suspicious (1)',
        ]);
      }
    });

    it('reads a clean answer', async () => {
      emu.script(c.indicator, 'clean');
      const result = await lookup(c.input);
      expect(result.status).toBe('ok');
      expect(result.verdict).toBe('clean');
      expect(result.score).toBe(0);
      expect(result.malwareFamilies).toEqual([]);
      expect(result.references).toEqual([c.page]);
      expect(result.evidence).toEqual([
        isFile(c)
          ? 'None of 29 engines flags it (0 harmless, 29 undetected)'
          : 'None of 30 engines flags it (15 harmless, 15 undetected)',
        'Community reputation +12 (votes: 4 harmless, 0 malicious)',
      ]);
      if (c.type === 'domain') expect(result.firstSeen).toBe('2000-01-01T00:00:00.000Z');
    });

    it('reads not_found as not found, never as clean', async () => {
      emu.script(c.indicator, 'not_found');
      const result = await lookup(c.input);
      expect(result).toEqual({
        status: 'not_found',
        verdict: 'unknown',
        score: 0,
        categories: [],
        tags: [],
        malwareFamilies: [],
        references: [c.notFoundPage],
        evidence: [`VirusTotal has no record of this ${c.noun}`],
      });
    });

    it('reports a wrong key (401 WrongCredentialsError) as auth_error', async () => {
      const result = await lookup(c.input, { apiKey: 'invalid-key' });
      expect(result.status).toBe('auth_error');
      expect(result.verdict).toBe('unknown');
      expect(result.error?.statusCode).toBe(401);
      expect(result.error?.message).toContain('WrongCredentialsError');
      expect(emu.requests.at(-1)?.headers['x-apikey']).toBe('invalid-key');
    });

    it('reports 403 ForbiddenError as auth_error', async () => {
      emu.script(c.indicator, 'forbidden');
      const result = await lookup(c.input);
      expect(result.status).toBe('auth_error');
      expect(result.error?.statusCode).toBe(403);
      expect(result.error?.message).toContain('ForbiddenError');
    });

    it('reports 429 QuotaExceededError as rate_limited with the wait from Retry-After', async () => {
      emu.script(c.indicator, 'rate_limited');
      const result = await lookup(c.input);
      expect(result.status).toBe('rate_limited');
      expect(result.verdict).toBe('unknown');
      expect(result.error).toMatchObject({ statusCode: 429, retryAfterMs: 60_000 });
      expect(result.error?.message).toContain('QuotaExceededError');
    });

    it('reports 503 TransientError as error', async () => {
      emu.script(c.indicator, 'server_error');
      const result = await lookup(c.input);
      expect(result.status).toBe('error');
      expect(result.verdict).toBe('unknown');
      expect(result.error?.statusCode).toBe(503);
      expect(result.error?.message).toContain('TransientError');
    });

    it('reports a body that is not JSON as error', async () => {
      emu.script(c.indicator, 'malformed');
      const result = await lookup(c.input);
      expect(result.status).toBe('error');
      expect(result.verdict).toBe('unknown');
      expect(result.error?.message).toContain('not JSON');
    });

    it('reports JSON of the wrong shape as error, naming the field', async () => {
      emu.script(c.indicator, 'wrong_shape');
      const result = await lookup(c.input);
      expect(result.status).toBe('error');
      expect(result.verdict).toBe('unknown');
      expect(result.error?.message).toContain('wrong shape');
      expect(result.error?.message).toContain('data.attributes.last_analysis_stats');
    });
  });

  it('reports a 500 from a server in front of the API as error', async () => {
    served = { status: 500, body: '<html><body>Internal Server Error</body></html>', contentType: 'text/html' };
    const result = await virustotalFeed.lookup(parseIndicator('evil.com'), context({ endpoint: fixtureEndpoint }));
    seen.push({ label: '500', result });
    expect(result.status).toBe('error');
    expect(result.verdict).toBe('unknown');
    expect(result.error?.statusCode).toBe(500);
  });

  it('does not read a 404 without NotFoundError (a wrong endpoint) as not found', async () => {
    served = { status: 404, body: '<html>404 page not found</html>', contentType: 'text/html' };
    const result = await virustotalFeed.lookup(parseIndicator('evil.com'), context({ endpoint: fixtureEndpoint }));
    seen.push({ label: '404 html', result });
    expect(result.status).toBe('error');
    expect(result.error?.statusCode).toBe(404);
    expect(result.error?.message).toContain('endpoint may be wrong');
  });

  it('reports an object of another type than asked for as error', async () => {
    const result = await lookupFixture('203.0.113.7', 'domain-malicious.json');
    expect(result.status).toBe('error');
    expect(result.error?.message).toBe('VirusTotal answered with a domain object to a ip_address lookup');
  });

  it('handles an endpoint with or without a trailing slash alike', async () => {
    emu.script('evil.com', 'clean');
    await lookup('evil.com', { endpoint: `${emu.endpoints.feed_scan}/` });
    expect(emu.requests.at(-1)?.url).toBe('/virustotal/api/v3/domains/evil.com');
  });

  it('includes the parsed body as raw only when asked', async () => {
    emu.script('evil.com', 'malicious');
    const withRaw = await lookup('evil.com', { includeRaw: true });
    expect(withRaw.raw).toMatchObject({ data: { id: 'evil.com', type: 'domain' } });
    emu.script('evil.com', 'rate_limited');
    const failedWithRaw = await lookup('evil.com', { includeRaw: true });
    expect(failedWithRaw.raw).toEqual({ error: { code: 'QuotaExceededError', message: 'Quota exceeded' } });
  });

  it('refuses email addresses without asking', async () => {
    const result = await lookup('user@example.com');
    expect(result.status).toBe('unsupported');
    expect(result.verdict).toBe('unknown');
    expect(emu.count('feed_scan')).toBe(0);
  });

  it('answers not_configured without asking when no key is set', async () => {
    const result = await lookup('evil.com', { apiKey: undefined });
    expect(result.status).toBe('not_configured');
    expect(emu.count('feed_scan')).toBe(0);
  });

  describe('fixtures', () => {
    it('file-malicious-eicar.json: families by count, score halved by a harmless-voting community', async () => {
      const result = await lookupFixture(SHA256, 'file-malicious-eicar.json');
      expect(result).toEqual({
        status: 'ok',
        verdict: 'malicious',
        score: 0.5,
        categories: ['virus'],
        tags: ['text', 'attachment', 'known-distributor'],
        malwareFamilies: ['eicar', 'test', 'file'],
        firstSeen: '2006-05-22T12:42:02.000Z',
        lastSeen: '2024-05-31T20:13:20.000Z',
        references: [`${GUI}/file/${SHA256}`],
        evidence: [
          '5 of 6 engines flag it malicious',
          "VirusTotal's suggested threat label: virus.eicar/test",
          'Community reputation +3531 (votes: 2563 harmless, 1065 malicious), so the score is halved',
        ],
      });
    });

    it('file-malicious-eicar.json answers an MD5 lookup with the SHA-256 page', async () => {
      const result = await lookupFixture(MD5, 'file-malicious-eicar.json');
      expect(result.references).toEqual([`${GUI}/file/${SHA256}`]);
    });

    it('domain-malicious.json: categories, labels and the WHOIS date as first seen', async () => {
      const result = await lookupFixture('secure-login-verify.com', 'domain-malicious.json');
      expect(result).toEqual({
        status: 'ok',
        verdict: 'malicious',
        score: 0.9,
        categories: ['phishing and other frauds', 'phishing and fraud', 'phishing'],
        tags: [],
        malwareFamilies: [],
        firstSeen: '2024-04-30T00:00:00.000Z',
        lastSeen: '2024-05-31T00:00:00.000Z',
        references: [`${GUI}/domain/secure-login-verify.com`],
        evidence: [
          '4 of 8 engines flag it malicious, 1 suspicious',
          'Engines label it phishing (3), malware (1), suspicious (1)',
          'Community reputation -12 (votes: 0 harmless, 3 malicious)',
        ],
      });
    });

    it('url-clean.json: clean, because engines positively analysed it', async () => {
      const result = await lookupFixture('http://www.example.com/', 'url-clean.json');
      expect(result).toEqual({
        status: 'ok',
        verdict: 'clean',
        score: 0,
        categories: ['information technology', 'computersandsoftware'],
        tags: [],
        malwareFamilies: [],
        firstSeen: '2010-06-01T11:24:05.000Z',
        lastSeen: '2024-05-31T10:06:40.000Z',
        references: [`${GUI}/url/0f115db062b7c0dd030b16878c99dea5c354b49dc37b38eb8846179c7783e9d7`],
        evidence: [
          'None of 5 engines flags it (3 harmless, 2 undetected)',
          'Community reputation +24 (votes: 9 harmless, 1 malicious)',
        ],
      });
    });

    it('url-disputed.json: still malicious, score halved and the evidence says why', async () => {
      const result = await lookupFixture('https://download.example-updates.net/setup.exe', 'url-disputed.json');
      expect(result.verdict).toBe('malicious');
      expect(result.score).toBeCloseTo(0.4, 10);
      expect(result.evidence).toEqual([
        '4 of 6 engines flag it malicious',
        'Engines label it malicious (3), malware (1)',
        'Community reputation +25 (votes: 30 harmless, 2 malicious), so the score is halved',
      ]);
      expect(result.tags).toEqual(['direct-download']);
      expect(result.categories).toEqual(['file download servers']);
    });

    it('url-no-analysis.json: known but not analysed is ok with verdict unknown, not clean', async () => {
      const result = await lookupFixture('http://fresh.example.org/landing', 'url-no-analysis.json');
      expect(result.status).toBe('ok');
      expect(result.verdict).toBe('unknown');
      expect(result.score).toBe(0);
      expect(result.evidence).toEqual(['VirusTotal knows it but has no engine verdicts for it yet']);
      expect(result.firstSeen).toBe('2024-06-01T00:00:00.000Z');
      expect(result.lastSeen).toBeUndefined();
    });

    it('file-undetected-nulls.json: null results and a null summary, counted from the engines', async () => {
      const result = await lookupFixture('9e107d9d372bb6826bd81d3542a419d6', 'file-undetected-nulls.json');
      expect(result).toEqual({
        status: 'ok',
        verdict: 'clean',
        score: 0,
        categories: [],
        tags: ['pdf'],
        malwareFamilies: [],
        firstSeen: '2024-01-01T00:00:00.000Z',
        lastSeen: '2024-06-01T00:00:00.000Z',
        references: [`${GUI}/file/0b5c6a1f4d0c2e3b8a9f7e6d5c4b3a29180f7e6d5c4b3a2918f7e6d5c4b3a291`],
        // The type-unsupported and timed-out engines gave no opinion and are not counted.
        evidence: ['None of 3 engines flags it (0 harmless, 3 undetected)'],
      });
    });

    it('ip-numbers-as-strings.json: numbers written as strings are still read', async () => {
      const result = await lookupFixture('8.8.8.8', 'ip-numbers-as-strings.json');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'clean',
        score: 0,
        lastSeen: '2024-06-01T00:00:00.000Z',
        references: [`${GUI}/ip-address/8.8.8.8`],
        evidence: [
          'None of 91 engines flags it (60 harmless, 31 undetected)',
          'Community reputation +552 (votes: 212 harmless, 41 malicious)',
        ],
      });
    });

    it('not-found.json (404) is not found', async () => {
      const result = await lookupFixture('hxxp://evil[.]com/dl.php?id=~1', 'not-found.json', 404);
      expect(result.status).toBe('not_found');
      expect(result.verdict).toBe('unknown');
      expect(result.references).toEqual([`${GUI}/url/${URL_ID}`]);
    });

    it('wrong-credentials.json (401) is auth_error', async () => {
      const result = await lookupFixture('evil.com', 'wrong-credentials.json', 401);
      expect(result.status).toBe('auth_error');
      expect(result.error?.message).toBe(
        'the API key for feed_scan is invalid or lacks permission (HTTP 401): WrongCredentialsError (Wrong API key)',
      );
    });

    it('quota-exceeded.json (429 without Retry-After) is rate_limited', async () => {
      const result = await lookupFixture('evil.com', 'quota-exceeded.json', 429);
      expect(result.status).toBe('rate_limited');
      expect(result.error?.retryAfterMs).toBeUndefined();
      expect(result.error?.message).toContain('QuotaExceededError');
    });

    it('not-available-yet.json (400) is error', async () => {
      const result = await lookupFixture(SHA256, 'not-available-yet.json', 400);
      expect(result.status).toBe('error');
      expect(result.error?.statusCode).toBe(400);
      expect(result.error?.message).toContain('NotAvailableYet');
    });
  });

  describe('invariants over every result above', () => {
    it('never calls anything clean unless VirusTotal analysed it as clean', () => {
      expect(seen.length).toBeGreaterThan(50);
      for (const { label, result } of seen) {
        if (result.verdict !== 'clean') continue;
        expect(result.status, label).toBe('ok');
        expect(result.evidence[0], label).toMatch(/^None of [1-9]\d* engines flags it/);
      }
      const failures = seen.filter(({ result }) => result.status !== 'ok' && result.status !== 'not_found');
      expect(failures.length).toBeGreaterThan(30);
      for (const { label, result } of failures) {
        expect(result.verdict, label).toBe('unknown');
        expect(result.score, label).toBe(0);
      }
    });

    it('never puts the API key into a result', () => {
      for (const { label, result } of seen) expect(JSON.stringify(result), label).not.toContain(KEY);
    });
  });
});
