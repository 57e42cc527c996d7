import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FeedEmulator, FIXTURE_REFERENCE_TIMES, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import { parseIndicator } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';
import { ABUSEIPDB_CATEGORIES, abuseipdbFeed } from './abuseipdb.js';
import type { FeedLookupContext, FeedLookupResult } from './feed.js';

const KEY = 'abuse-test-key-0123456789';
const IPV4 = '203.0.113.7';
const IPV6 = '2001:db8::7';

let emu: FeedEmulator;
let http: HttpClient;
/** Every result a test produced, checked at the end: none may read clean unless AbuseIPDB said so. */
const seen: { behaviour: string; result: FeedLookupResult }[] = [];

beforeAll(async () => {
  // The answers as recorded, so their dates can be asserted exactly.
  emu = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_abuse });
  http = createHttpClient();
});

afterAll(async () => {
  await http.close();
  await emu.close();
});

beforeEach(() => emu.reset());

function context(overrides: Partial<FeedLookupContext> = {}): FeedLookupContext {
  return {
    signal: new AbortController().signal,
    apiKey: KEY,
    endpoint: emu.endpoints.feed_abuse,
    http,
    options: {},
    includeRaw: false,
    logger: silentLogger,
    ...overrides,
  };
}

async function ask(
  value: string,
  behaviour: Parameters<FeedEmulator['script']>[1] | undefined,
  overrides: Partial<FeedLookupContext> = {},
) {
  if (behaviour !== undefined) emu.script(value, behaviour);
  const result = await abuseipdbFeed.lookup(parseIndicator(value), context(overrides));
  seen.push({ behaviour: typeof behaviour === 'string' ? behaviour : (behaviour?.behaviour ?? 'default'), result });
  return result;
}

describe('abuseipdbFeed', () => {
  it('declares the AbuseIPDB feed', () => {
    expect(abuseipdbFeed).toMatchObject({
      specificationVersion: 'v1',
      id: 'feed_abuse',
      name: 'AbuseIPDB',
      supportedTypes: ['ipv4', 'ipv6'],
      requiresKey: true,
      defaultEndpoint: 'https://api.abuseipdb.com/api/v2',
    });
  });

  it('maps all 23 documented report categories', () => {
    expect(Object.keys(ABUSEIPDB_CATEGORIES)).toHaveLength(23);
    expect(ABUSEIPDB_CATEGORIES[1]).toBe('DNS Compromise');
    expect(ABUSEIPDB_CATEGORIES[14]).toBe('Port Scan');
    expect(ABUSEIPDB_CATEGORIES[23]).toBe('IoT Targeted');
  });

  describe.each([
    ['ipv4', IPV4, encodeURIComponent(IPV4)],
    ['ipv6', IPV6, '2001%3Adb8%3A%3A7'],
  ])('for an %s address', (_type, ip, encoded) => {
    it('sends the request the API documents: GET /check, ipAddress, maxAgeInDays, the verbose flag, Key and Accept', async () => {
      await ask(ip, 'malicious');
      const request = emu.requests.at(-1);
      expect(request?.method).toBe('GET');
      expect(request?.path).toBe('/check');
      expect(request?.url).toBe(`/abuseipdb/api/v2/check?ipAddress=${encoded}&maxAgeInDays=90&verbose`);
      expect(request?.query.get('ipAddress')).toBe(ip);
      expect(request?.headers.key).toBe(KEY);
      expect(request?.headers.accept).toBe('application/json');
      expect(request?.body).toBe('');
      expect(request?.indicator).toBe(ip);
    });

    it('reads a malicious answer', async () => {
      const result = await ask(ip, 'malicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 1,
        categories: ['Brute-Force', 'SSH', 'Port Scan', 'Hacking', 'Web App Attack'],
        tags: [],
        malwareFamilies: [],
        lastSeen: '2025-11-20T08:14:03.000Z',
        references: [`https://www.abuseipdb.com/check/${ip}`],
      });
      expect(result.evidence).toEqual([
        "AbuseIPDB's confidence of abuse is 100% (6 reports from 5 users in the last 90 days).",
        'Reported for Brute-Force, SSH, Port Scan.',
      ]);
      expect(result.raw).toBeUndefined();
    });

    it('reads a suspicious answer and tags a Tor exit node', async () => {
      const result = await ask(ip, 'suspicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'suspicious',
        score: 0.42,
        categories: ['Port Scan', 'Hacking', 'Bad Web Bot'],
        tags: ['tor'],
        lastSeen: '2025-11-10T10:01:44.000Z',
      });
      expect(result.evidence).toEqual([
        "AbuseIPDB's confidence of abuse is 42% (3 reports from 2 users in the last 90 days).",
        'Reported for Port Scan, Hacking, Bad Web Bot.',
        'It is a Tor exit node.',
      ]);
    });

    it('reads a whitelisted address as clean with score 0', async () => {
      const result = await ask(ip, 'clean');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'clean',
        score: 0,
        categories: [],
        tags: ['whitelisted'],
        evidence: [
          'AbuseIPDB has it on its whitelist of known-good addresses (1 report in the last 90 days set aside).',
        ],
      });
    });

    it('reads an address nobody reported as not found, never clean', async () => {
      const result = await ask(ip, 'not_found');
      expect(result).toMatchObject({
        status: 'not_found',
        verdict: 'unknown',
        score: 0,
        categories: [],
        evidence: ['Nobody reported it to AbuseIPDB in the last 90 days.'],
        references: [`https://www.abuseipdb.com/check/${ip}`],
      });
      expect(result.lastSeen).toBeUndefined();
    });
  });

  it('works with an endpoint that ends in a slash', async () => {
    const result = await ask(IPV4, 'malicious', { endpoint: `${emu.endpoints.feed_abuse}/` });
    expect(result.verdict).toBe('malicious');
    expect(emu.requests.at(-1)?.path).toBe('/check');
  });

  it('sends maxAgeInDays from the options and says so in the evidence', async () => {
    const result = await ask(IPV4, 'suspicious', { options: { maxAgeInDays: 30 } });
    expect(emu.requests.at(-1)?.query.get('maxAgeInDays')).toBe('30');
    expect(result.evidence[0]).toBe(
      "AbuseIPDB's confidence of abuse is 42% (3 reports from 2 users in the last 30 days).",
    );
  });

  it.each([0, 366, 2.5, '90'])('refuses maxAgeInDays %j without asking AbuseIPDB', async (maxAgeInDays) => {
    const result = await ask(IPV4, 'malicious', { options: { maxAgeInDays } });
    expect(result).toMatchObject({ status: 'error', verdict: 'unknown' });
    expect(result.error?.message).toMatch(/maxAgeInDays must be a whole number of days from 1 to 365/);
    expect(emu.count('feed_abuse')).toBe(0);
  });

  describe('with the categories option', () => {
    it('counts only reports in one of the categories and names them', async () => {
      const result = await ask(IPV4, 'malicious', { options: { categories: [22, 14] } });
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 1,
        categories: ['Brute-Force', 'SSH', 'Port Scan'],
        lastSeen: '2025-11-20T08:14:03.000Z',
      });
      expect(result.evidence).toEqual([
        "AbuseIPDB's confidence of abuse is 100% (6 reports from 5 users in the last 90 days).",
        '4 of 6 reports in the last 90 days are in categories [Port Scan (14), SSH (22)].',
        'Reported for Brute-Force, SSH, Port Scan.',
      ]);
    });

    it('uses the latest counted report as last seen', async () => {
      const result = await ask(IPV4, 'malicious', { options: { categories: [21] } });
      expect(result.lastSeen).toBe('2025-11-15T03:11:58.000Z');
      expect(result.categories).toEqual(['Hacking', 'Web App Attack']);
    });

    it('reads reports none of which are in the categories as clean, saying how many were set aside', async () => {
      const result = await ask(IPV4, 'malicious', { options: { categories: [7, 11] } });
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'clean',
        score: 0,
        categories: [],
        evidence: ['6 reports in the last 90 days, none in categories [Phishing (7), Email Spam (11)].'],
      });
    });

    it('still reads an address nobody reported as not found', async () => {
      const result = await ask(IPV4, 'not_found', { options: { categories: [18] } });
      expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown' });
    });

    it('takes an empty list as no filter rather than as "nothing counts"', async () => {
      const result = await ask(IPV4, 'malicious', { options: { categories: [] } });
      expect(result.verdict).toBe('malicious');
    });

    it('refuses categories that are not a list of numbers', async () => {
      const result = await ask(IPV4, 'malicious', { options: { categories: ['ssh'] } });
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown' });
      expect(result.error?.message).toMatch(/categories must be a list of category numbers/);
    });
  });

  it('returns the raw body only when asked', async () => {
    const result = await ask(IPV4, 'malicious', { includeRaw: true });
    expect(result.raw).toMatchObject({ data: { ipAddress: IPV4, abuseConfidenceScore: 100 } });
  });

  describe('failures', () => {
    it('reads 401 as an auth error with AbuseIPDB’s reason and never the key', async () => {
      const result = await ask(IPV4, 'unauthorized');
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0, error: { statusCode: 401 } });
      expect(result.error?.message).toContain('Authentication failed');
      expect(JSON.stringify(result)).not.toContain(KEY);
    });

    it('reads the key "invalid-key" refused by the emulator as an auth error', async () => {
      const result = await ask(IPV4, 'malicious', { apiKey: 'invalid-key' });
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown' });
    });

    it('reads 403 as an auth error', async () => {
      const result = await ask(IPV4, 'forbidden');
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', error: { statusCode: 403 } });
    });

    it('reads 429 as rate limited with the Retry-After wait', async () => {
      const result = await ask(IPV4, 'rate_limited');
      expect(result).toMatchObject({
        status: 'rate_limited',
        verdict: 'unknown',
        error: { statusCode: 429, retryAfterMs: 29_241_000 },
      });
      expect(result.error?.message).toContain('Daily rate limit of 1000 requests exceeded');
    });

    it('reads 500 as an error', async () => {
      const result = await ask(IPV4, 'server_error');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown', error: { statusCode: 500 } });
    });

    it('reads a body that is not JSON as an error', async () => {
      const result = await ask(IPV4, 'malformed');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown' });
      expect(result.error?.message).toMatch(/not JSON/);
    });

    it('reads JSON of the wrong shape as an error naming the field', async () => {
      const result = await ask(IPV4, 'wrong_shape');
      expect(result).toMatchObject({ status: 'error', verdict: 'unknown' });
      expect(result.error?.message).toMatch(/data\.abuseConfidenceScore/);
    });

    it('lets an aborted request throw for the client to report', async () => {
      emu.script(IPV4, 'hang');
      const controller = new AbortController();
      const pending = abuseipdbFeed.lookup(parseIndicator(IPV4), context({ signal: controller.signal }));
      await vi.waitFor(() => expect(emu.count('feed_abuse', IPV4)).toBe(1));
      controller.abort();
      await expect(pending).rejects.toSatisfy((error) => HttpError.isInstance(error) && error.kind === 'aborted');
    });

    it('asks nothing without a key', async () => {
      const { apiKey: _omitted, ...withoutKey } = context();
      const result = await abuseipdbFeed.lookup(parseIndicator(IPV4), withoutKey);
      expect(result).toMatchObject({ status: 'not_configured', verdict: 'unknown' });
      expect(emu.count('feed_abuse')).toBe(0);
    });

    it.each(['evil.com', 'http://evil.com/x', 'd41d8cd98f00b204e9800998ecf8427e', 'someone@evil.com'])(
      'refuses %s as unsupported without asking',
      async (value) => {
        const result = await abuseipdbFeed.lookup(parseIndicator(value), context());
        expect(result).toMatchObject({ status: 'unsupported', verdict: 'unknown' });
        expect(emu.count('feed_abuse')).toBe(0);
      },
    );
  });

  describe('the emulator, like AbuseIPDB', () => {
    it('refuses an ipAddress that is not an IP address with its 422 answer', async () => {
      const response = await http.request(`${emu.endpoints.feed_abuse}/check?ipAddress=evil.example`, {
        headers: { Key: KEY, Accept: 'application/json' },
      });
      expect(response.status).toBe(422);
      expect(JSON.parse(response.body)).toEqual({
        errors: [
          {
            detail: 'The ip address must be a valid IPv4 or IPv6 address (e.g. 8.8.8.8 or 2001:4860:4860::8888).',
            status: 422,
            source: { parameter: 'ipAddress' },
          },
        ],
      });
    });

    it('leaves the reports out without verbose', async () => {
      emu.script(IPV4, 'malicious');
      const response = await http.request(`${emu.endpoints.feed_abuse}/check?ipAddress=${IPV4}`, {
        headers: { Key: KEY, Accept: 'application/json' },
      });
      const body = JSON.parse(response.body);
      expect(body.data.totalReports).toBe(6);
      expect(body.data.reports).toBeUndefined();
      expect(body.data.countryName).toBeUndefined();
    });
  });

  it('never read clean unless AbuseIPDB said so (whitelisted, low confidence, or no report in the categories)', () => {
    expect(seen.length).toBeGreaterThan(20);
    for (const { behaviour, result } of seen) {
      if (result.verdict === 'clean') {
        expect(['clean', 'malicious']).toContain(behaviour);
        expect(result.status).toBe('ok');
        expect(result.score).toBe(0);
      }
      if (result.status !== 'ok') expect(result.verdict).toBe('unknown');
    }
  });
});

describe('abuseipdbFeed with recorded bodies', () => {
  const fixtures = new URL('./__fixtures__/abuseipdb/', import.meta.url);
  let server: Server;
  let endpoint: string;
  /** What the server answers next: a fixture file, or a body built by the test. */
  let reply: { status: number; file?: string; body?: string; headers?: Record<string, string> };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      const body = reply.file ? readFile(new URL(reply.file, fixtures), 'utf8') : Promise.resolve(reply.body ?? '');
      body.then(
        (body) => {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function serve(value: string, file: string, status = 200, headers?: Record<string, string>) {
    reply = { status, file, ...(headers ? { headers } : {}) };
    return abuseipdbFeed.lookup(parseIndicator(value), context({ endpoint }));
  }

  it('parses the documented verbose answer', async () => {
    const result = await serve('118.25.6.39', 'check-verbose-malicious.json');
    expect(result).toMatchObject({
      status: 'ok',
      verdict: 'malicious',
      score: 1,
      categories: ['Brute-Force', 'SSH'],
      lastSeen: '2018-12-20T20:55:14.000Z',
      references: ['https://www.abuseipdb.com/check/118.25.6.39'],
      evidence: [
        "AbuseIPDB's confidence of abuse is 100% (1 report from 1 user in the last 90 days).",
        'Reported for Brute-Force, SSH.',
      ],
    });
  });

  it('parses a whitelisted answer as clean', async () => {
    const result = await serve('8.8.8.8', 'check-whitelisted.json');
    expect(result).toMatchObject({ status: 'ok', verdict: 'clean', score: 0, tags: ['whitelisted'] });
    expect(result.evidence).toEqual([
      'AbuseIPDB has it on its whitelist of known-good addresses (2 reports in the last 90 days set aside).',
    ]);
  });

  it('parses reports with a low confidence as clean, saying why', async () => {
    const result = await serve('2a01:4f8:c17:1b2::1', 'check-low-confidence.json');
    expect(result).toMatchObject({
      status: 'ok',
      verdict: 'clean',
      score: 0.09,
      categories: ['Bad Web Bot', 'Web App Attack'],
      lastSeen: '2025-11-03T19:21:40.000Z',
    });
    expect(result.evidence).toEqual([
      "AbuseIPDB's confidence of abuse is 9% (2 reports from 1 user in the last 90 days).",
      'Reported for Bad Web Bot, Web App Attack.',
      'Reports exist, but a confidence below 25% is too low to call it suspicious.',
    ]);
  });

  it('parses an unreported private address with null fields as not found', async () => {
    const result = await serve('10.20.30.40', 'check-unreported-nulls.json');
    expect(result).toMatchObject({
      status: 'not_found',
      verdict: 'unknown',
      score: 0,
      evidence: ['Nobody reported it to AbuseIPDB in the last 90 days (it is not a public address).'],
    });
  });

  it('parses the recorded 401 body', async () => {
    const result = await serve(IPV4, 'error-401.json', 401);
    expect(result.status).toBe('auth_error');
    expect(result.error?.message).toContain('The APIv2 key differs from the APIv1 key');
  });

  it('parses the recorded 422 body as an error naming the reason', async () => {
    const result = await serve(IPV4, 'error-422-invalid-ip.json', 422);
    expect(result).toMatchObject({ status: 'error', verdict: 'unknown', error: { statusCode: 422 } });
    expect(result.error?.message).toContain('must be a valid IPv4 or IPv6 address');
  });

  it('parses the documented 429 with its headers', async () => {
    const reset = Math.floor(Date.now() / 1000) + 600;
    const result = await serve(IPV4, 'error-429-daily-limit.json', 429, {
      'Retry-After': '29241',
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(reset),
    });
    expect(result).toMatchObject({ status: 'rate_limited', error: { retryAfterMs: 29_241_000 } });
  });

  it('falls back to X-RateLimit-Reset when Retry-After is missing', async () => {
    const reset = Math.floor(Date.now() / 1000) + 600;
    const result = await serve(IPV4, 'error-429-daily-limit.json', 429, { 'X-RateLimit-Reset': String(reset) });
    expect(result.status).toBe('rate_limited');
    expect(result.error?.retryAfterMs).toBeGreaterThan(590_000);
    expect(result.error?.retryAfterMs).toBeLessThanOrEqual(600_000);
  });

  it('refuses to guess when the categories filter is set but the answer carries no reports', async () => {
    const body = JSON.parse(await readFile(new URL('check-verbose-malicious.json', fixtures), 'utf8')) as {
      data: Record<string, unknown>;
    };
    delete body.data.reports;
    reply = { status: 200, body: JSON.stringify(body) };
    const result = await abuseipdbFeed.lookup(
      parseIndicator('118.25.6.39'),
      context({ endpoint, options: { categories: [18] } }),
    );
    expect(result).toMatchObject({ status: 'error', verdict: 'unknown' });
    expect(result.error?.message).toMatch(/categories filter could not be applied/);
  });
});
