import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FeedEmulator, FIXTURE_REFERENCE_TIMES, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import { parseIndicator } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';
import { crowdsecFeed } from './crowdsec.js';
import type { FeedLookupContext, FeedLookupResult } from './feed.js';

const KEY = 'cti-test-key-abcdef';
const IPV4 = '203.0.113.45';
const IPV6 = '2001:db8:cafe::45';

let emu: FeedEmulator;
let http: HttpClient;
/** Every result a test produced, checked at the end: none may read clean unless CrowdSec said so. */
const seen: { behaviour: string; result: FeedLookupResult }[] = [];

beforeAll(async () => {
  // The answers as recorded, so their dates can be asserted exactly.
  emu = await startFeedEmulator({ now: FIXTURE_REFERENCE_TIMES.feed_cti });
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
    endpoint: emu.endpoints.feed_cti,
    http,
    options: {},
    includeRaw: false,
    logger: silentLogger,
    ...overrides,
  };
}

async function ask(
  value: string,
  behaviour: Parameters<FeedEmulator['script']>[1],
  overrides: Partial<FeedLookupContext> = {},
) {
  emu.script(value, behaviour);
  const result = await crowdsecFeed.lookup(parseIndicator(value), context(overrides));
  seen.push({ behaviour: typeof behaviour === 'string' ? behaviour : behaviour.behaviour, result });
  return result;
}

describe('crowdsecFeed', () => {
  it('declares the CrowdSec CTI feed', () => {
    expect(crowdsecFeed).toMatchObject({
      specificationVersion: 'v1',
      id: 'feed_cti',
      name: 'CrowdSec CTI',
      supportedTypes: ['ipv4', 'ipv6'],
      requiresKey: true,
      defaultEndpoint: 'https://cti.api.crowdsec.net/v2',
    });
  });

  describe.each([
    ['ipv4', IPV4],
    ['ipv6', IPV6],
  ])('for an %s address', (_type, ip) => {
    it('sends the request the API documents: GET /smoke/{ip} with x-api-key', async () => {
      await ask(ip, 'malicious');
      const request = emu.requests.at(-1);
      expect(request?.method).toBe('GET');
      expect(request?.path).toBe(`/smoke/${ip}`);
      expect(request?.url).toBe(`/crowdsec/v2/smoke/${ip}`);
      expect([...(request?.query.keys() ?? [])]).toEqual([]);
      expect(request?.headers['x-api-key']).toBe(KEY);
      expect(request?.headers.accept).toBe('application/json');
      expect(request?.body).toBe('');
      expect(request?.indicator).toBe(ip);
    });

    it('reads a malicious answer', async () => {
      const result = await ask(ip, 'malicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'malicious',
        score: 0.8,
        categories: ['SSH Bruteforce', 'HTTP Exploit'],
        tags: ['CrowdSec Community Blocklist', 'SSH Bruteforce', 'Confluence CVE-2022-26134'],
        malwareFamilies: [],
        firstSeen: '2025-08-02T14:15:00.000Z',
        lastSeen: '2025-11-19T22:45:00.000Z',
        references: [`https://app.crowdsec.net/cti/${ip}`],
      });
      expect(result.evidence).toEqual([
        'CrowdSec rates it malicious, overall score 4/5.',
        'Reported for SSH Bruteforce, HTTP Exploit.',
        'On blocklists: Firehol cybercrime tracker list.',
      ]);
      expect(result.raw).toBeUndefined();
    });

    it('reads a suspicious answer and says it is background noise', async () => {
      const result = await ask(ip, 'suspicious');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'suspicious',
        score: 0.4,
        categories: ['TCP Scan'],
        tags: ['Data Center', 'Port Scanner'],
      });
      expect(result.evidence).toEqual([
        'CrowdSec rates it suspicious, overall score 2/5.',
        'Reported for TCP Scan.',
        'Background noise: an internet-wide scanner, untargeted mass attacks (noise score 10/10).',
      ]);
    });

    it('reads a safe answer with a false positive as clean, naming the benign class', async () => {
      const result = await ask(ip, 'clean');
      expect(result).toMatchObject({
        status: 'ok',
        verdict: 'clean',
        score: 0,
        categories: [],
        tags: ['Cloudflare CDN', 'HTTP Probing'],
        evidence: ['Known benign: Cloudflare CDN.'],
      });
    });

    it('reads 404 as not found, never clean', async () => {
      const result = await ask(ip, 'not_found');
      expect(result).toMatchObject({
        status: 'not_found',
        verdict: 'unknown',
        score: 0,
        categories: [],
        tags: [],
        references: [`https://app.crowdsec.net/cti/${ip}`],
        evidence: ['CrowdSec has no information about it ("IP address information not found").'],
      });
    });
  });

  it('works with an endpoint that ends in a slash', async () => {
    const result = await ask(IPV4, 'malicious', { endpoint: `${emu.endpoints.feed_cti}/` });
    expect(result.verdict).toBe('malicious');
    expect(emu.requests.at(-1)?.path).toBe(`/smoke/${IPV4}`);
  });

  it('returns the raw body only when asked', async () => {
    const result = await ask(IPV4, 'malicious', { includeRaw: true });
    expect(result.raw).toMatchObject({ ip: IPV4, reputation: 'malicious' });
  });

  describe('failures', () => {
    it('reads the 403 CrowdSec sends for a refused key as an auth error, never showing the key', async () => {
      const result = await ask(IPV4, 'unauthorized');
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', score: 0, error: { statusCode: 403 } });
      expect(result.error?.message).toContain('CrowdSec says "Forbidden"');
      expect(JSON.stringify(result)).not.toContain(KEY);
    });

    it('reads the key "invalid-key" refused by the emulator as an auth error', async () => {
      const result = await ask(IPV4, 'malicious', { apiKey: 'invalid-key' });
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown' });
    });

    it('reads forbidden as an auth error', async () => {
      const result = await ask(IPV4, 'forbidden');
      expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown', error: { statusCode: 403 } });
    });

    it('reads 429 as rate limited with the Retry-After wait and says the quota is used up', async () => {
      const result = await ask(IPV4, 'rate_limited');
      expect(result).toMatchObject({
        status: 'rate_limited',
        verdict: 'unknown',
        error: { statusCode: 429, retryAfterMs: 3_600_000 },
      });
      expect(result.error?.message).toContain('quota of this key is used up ("Limit Exceeded")');
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
      expect(result.error?.message).toMatch(/reputation/);
    });

    it('lets an aborted request throw for the client to report', async () => {
      emu.script(IPV4, 'hang');
      const controller = new AbortController();
      const pending = crowdsecFeed.lookup(parseIndicator(IPV4), context({ signal: controller.signal }));
      await vi.waitFor(() => expect(emu.count('feed_cti', IPV4)).toBe(1));
      controller.abort();
      await expect(pending).rejects.toSatisfy((error) => HttpError.isInstance(error) && error.kind === 'aborted');
    });

    it('asks nothing without a key', async () => {
      const { apiKey: _omitted, ...withoutKey } = context();
      const result = await crowdsecFeed.lookup(parseIndicator(IPV4), withoutKey);
      expect(result).toMatchObject({ status: 'not_configured', verdict: 'unknown' });
      expect(emu.count('feed_cti')).toBe(0);
    });

    it.each(['evil.com', 'http://evil.com/x', 'd41d8cd98f00b204e9800998ecf8427e', 'someone@evil.com'])(
      'refuses %s as unsupported without asking',
      async (value) => {
        const result = await crowdsecFeed.lookup(parseIndicator(value), context());
        expect(result).toMatchObject({ status: 'unsupported', verdict: 'unknown' });
        expect(emu.count('feed_cti')).toBe(0);
      },
    );
  });

  describe('the emulator, like the CrowdSec gateway', () => {
    it('answers an unrouted method with 403 "Missing Authentication Token"', async () => {
      const response = await http.request(`${emu.endpoints.feed_cti}/smoke/${IPV4}`, {
        method: 'POST',
        headers: { 'x-api-key': KEY },
      });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toEqual({ message: 'Missing Authentication Token' });
    });

    it('refuses a request without a key with 403 "Forbidden"', async () => {
      emu.script(IPV4, 'malicious');
      const response = await http.request(`${emu.endpoints.feed_cti}/smoke/${IPV4}`);
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toEqual({ message: 'Forbidden' });
    });
  });

  it('never read clean unless CrowdSec said so (safe, benign or a false-positive class)', () => {
    expect(seen.length).toBeGreaterThan(15);
    for (const { behaviour, result } of seen) {
      if (result.verdict === 'clean') {
        expect(behaviour).toBe('clean');
        expect(result.score).toBe(0);
      }
      if (result.status !== 'ok') expect(result.verdict).toBe('unknown');
    }
  });
});

describe('crowdsecFeed with recorded bodies', () => {
  const fixtures = new URL('./__fixtures__/crowdsec/', import.meta.url);
  let server: Server;
  let endpoint: string;
  let reply: { status: number; file: string; headers?: Record<string, string> };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      readFile(new URL(reply.file, fixtures), 'utf8').then(
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
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function serve(value: string, file: string, status = 200, headers?: Record<string, string>) {
    reply = { status, file, ...(headers ? { headers } : {}) };
    return crowdsecFeed.lookup(parseIndicator(value), context({ endpoint }));
  }

  it('parses a recorded malicious answer', async () => {
    const result = await serve('192.0.2.190', 'smoke-malicious.json');
    expect(result).toMatchObject({
      status: 'ok',
      verdict: 'malicious',
      score: 0.8,
      categories: ['HTTP Scan', 'HTTP Exploit', 'HTTP Bruteforce', 'TCP Scan', 'Web form spam'],
      tags: [
        'CrowdSec Community Blocklist',
        'Confluence CVE-2022-26134',
        'HTTP Path Traversal Exploit',
        'HTTP Probing',
      ],
      firstSeen: '2023-06-13T19:00:00.000Z',
      lastSeen: '2024-04-18T08:15:00.000Z',
      references: ['https://app.crowdsec.net/cti/192.0.2.190'],
    });
    expect(result.evidence).toEqual([
      'CrowdSec rates it malicious, overall score 4/5.',
      'Reported for HTTP Scan, HTTP Exploit, HTTP Bruteforce, TCP Scan.',
      'Background noise medium: reported by many CrowdSec users (noise score 7/10).',
      'On blocklists: Firehol cybercrime tracker list.',
    ]);
  });

  it('judges an older answer without reputation by its overall score', async () => {
    const result = await serve('1.1.1.1', 'smoke-without-reputation.json');
    expect(result).toMatchObject({
      status: 'ok',
      verdict: 'suspicious',
      score: 0.4,
      categories: ['SSH Bruteforce', 'TCP Scan', 'HTTP Scan'],
      tags: ['Dangerous Services Exposed', 'Many Services Exposed', 'SSH Bruteforce', 'Port Scanner'],
    });
    expect(result.evidence[0]).toBe('CrowdSec sent no reputation; judged by its overall score 2/5.');
  });

  it('parses safe with a false positive as clean', async () => {
    const result = await serve('104.16.0.10', 'smoke-safe-false-positive.json');
    expect(result).toMatchObject({
      status: 'ok',
      verdict: 'clean',
      score: 0,
      categories: [],
      evidence: ['Known benign: Cloudflare CDN.'],
    });
  });

  it('parses benign as clean, naming who it is', async () => {
    const result = await serve('198.51.100.33', 'smoke-benign-scanner.json');
    expect(result).toMatchObject({
      status: 'ok',
      verdict: 'clean',
      score: 0,
      tags: ['Known Security Company: Shodan', 'Port Scanner'],
      evidence: ['CrowdSec rates it benign, not dangerous: Known Security Company: Shodan.'],
    });
  });

  it('parses "known" with null numbers as undecided, not clean', async () => {
    const result = await serve('2001:db8:4:1::25', 'smoke-known-nulls.json');
    expect(result).toMatchObject({
      status: 'ok',
      verdict: 'unknown',
      score: 0.2,
      categories: ['SMTP spam'],
      tags: ['Postfix Spam'],
      firstSeen: '2025-11-12T04:00:00.000Z',
    });
    expect(result.evidence).toEqual([
      'CrowdSec has seen it but not decided (reputation "known"), overall score 1/5.',
      'Reported for SMTP spam.',
    ]);
  });

  it('parses the recorded 404 as not found', async () => {
    const result = await serve(IPV4, 'not-found.json', 404);
    expect(result).toMatchObject({ status: 'not_found', verdict: 'unknown' });
  });

  it('reads a 404 that is not CrowdSec’s JSON answer (a wrong endpoint) as an error, not as not found', async () => {
    const result = await serve(IPV4, 'README.md', 404);
    expect(result).toMatchObject({ status: 'error', verdict: 'unknown', error: { statusCode: 404 } });
  });

  it('parses the recorded 403', async () => {
    const result = await serve(IPV4, 'forbidden-403.json', 403);
    expect(result).toMatchObject({ status: 'auth_error', verdict: 'unknown' });
  });

  it('parses the quota 429 without inventing a wait CrowdSec did not give', async () => {
    const result = await serve(IPV4, 'quota-exceeded-429.json', 429);
    expect(result).toMatchObject({ status: 'rate_limited', verdict: 'unknown', error: { statusCode: 429 } });
    expect(result.error?.retryAfterMs).toBeUndefined();
    expect(result.error?.message).toContain('quota of this key is used up');
  });

  it('parses the burst 429 as a short throttle', async () => {
    const result = await serve(IPV4, 'throttled-429.json', 429);
    expect(result.status).toBe('rate_limited');
    expect(result.error?.message).toContain('too many requests in a short time ("Too Many Requests")');
  });
});
