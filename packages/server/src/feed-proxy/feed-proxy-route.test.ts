// The feed proxy (browser.corsProxy's server side): it reaches the configured feeds only, adds their keys
// server-side, and is attacked here the ways an open proxy is: other hosts, path traversal, header injection, huge
// bodies, redirects, no authentication.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { APIServer } from '../api-server.js';
import { startServer, TOKEN } from '../http/raw-http.test-suite.js';

const OTX_KEY = 'otx-key-held-by-the-server-0123456789';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback HTTP server standing for a feed (or for a host that is not one), recording what reaches it. */
async function fakeFeed(): Promise<{ base: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const path = request.url ?? '';
      if (path.includes('/echo-key')) {
        response.writeHead(401, { 'content-type': 'application/json', 'set-cookie': 'session=feed' });
        response.end(JSON.stringify({ error: `invalid key ${request.headers['x-otx-api-key']}` }));
      } else if (path.includes('/huge')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(`"${'x'.repeat(6 * 1024 * 1024)}"`);
      } else if (path.includes('/redirect')) {
        response.writeHead(302, { location: 'http://127.0.0.1:9/steal' }).end();
      } else if (path.includes('/down')) {
        response.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance');
      } else {
        response.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-remaining': '99' });
        response.end(JSON.stringify({ pulse_info: { count: 2 }, asked: path }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** A request whose path goes on the wire exactly as written (no URL parser resolves dot segments first). */
function raw(
  port: number,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${TOKEN}`, ...init.headers },
        agent: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
    request.end(init.body);
  });
}

let feed: Awaited<ReturnType<typeof fakeFeed>>;
let other: Awaited<ReturnType<typeof fakeFeed>>;
let server: APIServer;
let port: number;
const servers: APIServer[] = [];

beforeAll(async () => {
  feed = await fakeFeed();
  other = await fakeFeed();
  const client = new ThreatClient(
    {
      sources: ['feed_otx', 'feed_urls'],
      apiKeys: {
        feed_otx: { key: OTX_KEY, endpoint: `${feed.base}/otx/api/v1` },
        feed_urls: { endpoint: `${feed.base}/urlhaus/v1/` },
      },
      security: { enforceHttps: false },
    } as ThreatConfig,
    { env: false, logger: silentLogger },
  );
  ({ server, port } = await startServer({ bodyLimit: 64 * 1024 }, client));
  servers.push(server);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all([feed, other].map(({ server: s }) => new Promise((resolve) => s.close(resolve))));
});

afterEach(() => {
  feed.seen.length = 0;
  other.seen.length = 0;
});

const proxied = (target: string) => `/api/v1/proxy/${target}`;

describe('the feed proxy reaches a configured feed', () => {
  it('adds the feed key server-side, sends nothing of the page, and passes back the answer', async () => {
    const answer = await raw(port, proxied(`${feed.base}/otx/api/v1/indicators/IPv4/198.51.100.7/general?x=1`), {
      headers: { cookie: 'page=secret', 'x-otx-api-key': 'page-chosen-key', origin: 'https://page.example' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      pulse_info: { count: 2 },
      asked: '/otx/api/v1/indicators/IPv4/198.51.100.7/general?x=1',
    });
    expect(answer.headers['x-ratelimit-remaining']).toBe('99');
    expect(feed.seen).toHaveLength(1);
    const [seen] = feed.seen as [Seen];
    expect(seen.headers['x-otx-api-key']).toBe(OTX_KEY);
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers.origin).toBeUndefined();
  });

  it('keeps percent-encoded slashes of an indicator as they are (an OTX URL lookup)', async () => {
    const path = '/otx/api/v1/indicators/url/https%3A%2F%2Fevil.example%2Fa/general';
    expect((await raw(port, proxied(`${feed.base}${path}`))).status).toBe(200);
    expect(feed.seen[0]?.url).toBe(path);
  });

  it('a POST body (a JSON object of strings) goes to the feed as a form; other bodies are refused', async () => {
    const ok = await raw(port, proxied(`${feed.base}/urlhaus/v1/host/`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host: 'evil.example' }),
    });
    expect(ok.status).toBe(200);
    expect(feed.seen[0]).toMatchObject({ method: 'POST', body: 'host=evil.example' });
    expect(feed.seen[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(feed.seen[0]?.headers['auth-key']).toBeUndefined();
    const nested = await raw(port, proxied(`${feed.base}/urlhaus/v1/host/`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host: { $gt: '' } }),
    });
    expect(nested.status).toBe(400);
    expect(feed.seen).toHaveLength(1);
  });

  it('a form POST (what the client sends through browser.corsProxy) goes on as it came, at most 20 fields', async () => {
    const ok = await raw(port, proxied(`${feed.base}/urlhaus/v1/host/`), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'host=evil.example',
    });
    expect(ok.status).toBe(200);
    expect(feed.seen[0]).toMatchObject({ method: 'POST', body: 'host=evil.example' });
    const many = await raw(port, proxied(`${feed.base}/urlhaus/v1/host/`), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Array.from({ length: 21 }, (_, i) => `f${i}=x`).join('&'),
    });
    expect(many.status).toBe(400);
    expect(feed.seen).toHaveLength(1);
    // Other routes still take JSON only.
    const scan = await raw(port, '/api/v1/threats/scan', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'indicator=198.51.100.1',
    });
    expect(scan.status).toBe(415);
  });

  it('blanks the key out of a feed answer that echoes it, and drops the feed headers it does not need', async () => {
    const answer = await raw(port, proxied(`${feed.base}/otx/api/v1/echo-key`));
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain(OTX_KEY);
    expect(answer.body).toContain('[redacted]');
    expect(answer.headers['set-cookie']).toBeUndefined();
  });
});

describe('the feed proxy is not an open proxy', () => {
  it('refuses unauthenticated calls before reaching anything', async () => {
    const answer = await raw(port, proxied(`${feed.base}/otx/api/v1/indicators/IPv4/1.2.3.4/general`), {
      headers: { authorization: '' },
    });
    expect(answer.status).toBe(401);
    expect(feed.seen).toHaveLength(0);
  });

  it.each([
    ['another host', (_f: string, o: string) => `${o}/otx/api/v1/x`],
    ['the feed host outside its endpoint path', (f: string) => `${f}/admin`],
    ['a sibling path sharing the prefix', (f: string) => `${f}/otx/api/v10/x`],
    [
      'a host name that starts like the feed',
      (f: string) => `${f.replace('127.0.0.1', '127.0.0.1.nip.io')}/otx/api/v1/x`,
    ],
    [
      'user info in front of the feed host',
      (_f: string, o: string) => `http://127.0.0.1@${new URL(o).host}/otx/api/v1/x`,
    ],
    ['another scheme', () => 'file:///etc/passwd'],
  ])('refuses %s (403/400), and nothing is asked', async (_name, make) => {
    const answer = await raw(port, proxied(make(feed.base, other.base)));
    expect([400, 403]).toContain(answer.status);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(feed.seen.length + other.seen.length).toBe(0);
  });

  it.each([
    ['dot segments', '/otx/api/v1/../../admin'],
    ['a trailing dot segment', '/otx/api/v1/..'],
    ['percent-encoded dots', '/otx/api/v1/%2e%2e/%2E%2E/admin'],
    ['a backslash', '/otx/api/v1/..\\admin'],
    ['an encoded backslash', '/otx/api/v1/%5c..%5cadmin'],
    ['an encoded NUL', '/otx/api/v1/x%00.json'],
  ])('refuses path traversal by %s', async (_name, path) => {
    const answer = await raw(port, proxied(`${feed.base}${path}`));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(/dot segment|backslash/);
    expect(feed.seen).toHaveLength(0);
  });

  it('sends no header the page injects through the URL (CR LF encoded or raw)', async () => {
    const encoded = await raw(port, proxied(`${feed.base}/otx/api/v1/x%0d%0aX-Injected:%20yes`));
    expect(encoded.status).toBe(200);
    expect(feed.seen[0]?.headers['x-injected']).toBeUndefined();
    // A raw CR LF never leaves the page's request line: Node refuses to send it.
    await expect(raw(port, proxied(`${feed.base}/otx/api/v1/x\r\nX-Injected: yes`))).rejects.toThrow();
  });

  it('refuses a request body over the server limit (413) without asking the feed', async () => {
    const answer = await raw(port, proxied(`${feed.base}/urlhaus/v1/host/`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host: 'x'.repeat(200 * 1024) }),
    });
    expect(answer.status).toBe(413);
    expect(feed.seen).toHaveLength(0);
  });

  it('cuts a feed answer over 4 MiB (502, not passed on)', async () => {
    const answer = await raw(port, proxied(`${feed.base}/otx/api/v1/huge`));
    expect(answer.status).toBe(502);
    expect(answer.body).toMatch(/more than 4194304 bytes/);
  });

  it('follows no redirect (the key must not travel), and reports a feed failure as 502', async () => {
    const redirected = await raw(port, proxied(`${feed.base}/otx/api/v1/redirect`));
    expect(redirected.status).toBe(502);
    expect(redirected.body).toMatch(/redirect/);
    expect(redirected.headers.location).toBeUndefined();
    const down = await raw(port, proxied(`${feed.base}/otx/api/v1/down`));
    expect(down.status).toBe(502);
    expect(down.body).toMatch(/feed_otx answered 503/);
  });

  it('answers no problem that quotes the key', async () => {
    for (const path of ['/otx/api/v1/redirect', '/otx/api/v1/huge', '/admin']) {
      expect((await raw(port, proxied(`${feed.base}${path}`))).body).not.toContain(OTX_KEY);
    }
  });
});

describe('the feed proxy with keys in a vault', () => {
  it('adds the key the vault holds, and answers the vault-locked problem while it is locked', async () => {
    const { client, vault } = await ThreatClient.createVault(
      'a test password',
      { feed_otx: { key: 'otx-key-in-the-vault-0123456789', endpoint: `${feed.base}/otx/api/v1` } },
      {
        keyDerivation: 'pbkdf2',
        iterations: 1000,
        autoLock: false,
        config: { sources: ['feed_otx'], security: { enforceHttps: false } } as Partial<ThreatConfig>,
        clientOptions: { env: false, logger: silentLogger },
      },
    );
    const started = await startServer({}, client);
    servers.push(started.server);
    const target = proxied(`${feed.base}/otx/api/v1/indicators/IPv4/198.51.100.7/general`);
    expect((await raw(started.port, target)).status).toBe(200);
    expect(feed.seen[0]?.headers['x-otx-api-key']).toBe('otx-key-in-the-vault-0123456789');
    vault.lock();
    const locked = await raw(started.port, target);
    expect(locked.status).toBe(503);
    expect(locked.body).toMatch(/vault-locked/);
    expect(feed.seen).toHaveLength(1);
  });
});
