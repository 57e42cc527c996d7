import { createHash, generateKeyPairSync } from 'node:crypto';
import { validate } from '@readme/openapi-parser';
import { parseConfig, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { createLogger } from '@threatlib/core/logging';
import { exportJWK, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { APIServer, type APIServerOptions } from './api-server.js';
import { hashPassword } from './auth/password-hash.js';
import { exampleBlocklistPath } from './cli/embedded-config.js';

const TOKEN = 'test-token-0123456789';
const LISTED = '45.148.10.240'; // on the shipped example blocklist
const running: APIServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

function client(extra: Partial<ThreatConfig> = {}) {
  return new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'example', file: exampleBlocklistPath() }],
      security: { enforceHttps: false },
      ...extra,
    } as ThreatConfig,
    { env: false, logger: silentLogger },
  );
}

async function serve(options: APIServerOptions = {}, c = client()) {
  const server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TOKEN] }, ...options });
  server.mount('/api/v1', c);
  running.push(server);
  const base = await server.start();
  const call = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const { token = TOKEN, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    if (rest.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${base}${path}`, { ...rest, headers });
  };
  return { server, base, call, client: c };
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are whatever the assertions check.
type Json = any;
const json = async (response: Response | Promise<Response>): Promise<Json> => (await response).json();

const post = (body: unknown) => ({ method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('authentication (bearer)', () => {
  it.each([
    ['no token', null, 401],
    ['a wrong token', 'nope', 401],
    ['the right token', TOKEN, 200],
  ])('GET /feeds/status with %s answers %i', async (_name, token, status) => {
    const { call } = await serve();
    const response = await call('/api/v1/feeds/status', { token });
    expect(response.status).toBe(status);
    if (status === 401) {
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const body = await json(response);
      expect(body).toMatchObject({ type: 'https://threatlib.dev/problems/unauthorized', status: 401 });
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    }
  });

  it('refuses to build an open server unless asked', () => {
    expect(() => new APIServer({ port: 0 }).mount('/api/v1', client())).toThrow(/needs authentication/);
    expect(() => new APIServer({ port: 0, authentication: { type: 'none' } }).mount('/api/v1', client())).not.toThrow();
  });
});

describe('routes', () => {
  it('POST /threats/scan: a listed IP is malicious with evidence; a resolver on a warninglist is clean', async () => {
    const files = [new URL('../assets/public-dns-resolvers.json', import.meta.url).pathname];
    const { call } = await serve({}, client({ warninglists: { builtin: true, files } }));
    const bad = await json(call('/api/v1/threats/scan', post({ indicator: LISTED })));
    expect(bad).toMatchObject({ indicator: LISTED, verdict: 'malicious', isThreat: true });
    expect(bad.results[0].evidence[0]).toMatch(/listed in local list "example"/);
    const good = await json(call('/api/v1/threats/scan', post({ indicator: '8.8.8.8' })));
    expect(good).toMatchObject({
      verdict: 'clean',
      isThreat: false,
      warninglist: { entry: expect.stringContaining('8.8.8.8') },
    });
  });

  it('POST /threats/batch reports each item, errors per item, and refuses a batch over the limit with 413', async () => {
    const { call } = await serve({ batchLimit: 3 });
    const response = await call(
      '/api/v1/threats/batch',
      post({ indicators: [LISTED, 'not an indicator', { indicator: '198.51.100.1', type: 'ipv4' }] }),
    );
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.summary).toEqual({ total: 3, succeeded: 2, failed: 1 });
    expect(body.results[1]).toMatchObject({
      input: 'not an indicator',
      ok: false,
      problem: { status: 400, type: 'https://threatlib.dev/problems/invalid-indicator' },
    });
    const tooMany = await call(
      '/api/v1/threats/batch',
      post({ indicators: ['1.2.3.4', '1.2.3.5', '1.2.3.6', '1.2.3.7'] }),
    );
    expect(tooMany.status).toBe(413);
    expect((await json(tooMany)).detail).toMatch(/at most 3 indicators; this one has 4/);
  });

  it('POST /correlate returns the contributions', async () => {
    const { call } = await serve();
    const body = await json(call('/api/v1/correlate', post({ indicator: LISTED })));
    expect(body).toMatchObject({
      consensus: 1,
      strategy: 'aggressive',
      contributions: [{ feed: 'list:example', counted: true }],
    });
  });

  it('GET /feeds/status shows keyed feeds without keys as not configured', async () => {
    const { call } = await serve({}, client({ sources: ['feed_otx', 'feed_scan'] }));
    const { feeds } = await json(call('/api/v1/feeds/status'));
    expect(feeds.map((f: { feed: string; configured: boolean }) => [f.feed, f.configured])).toEqual([
      ['feed_otx', false],
      ['feed_scan', false],
    ]);
  });

  it("GET /quotas shows what is left of each feed's windows, the client's own figures without a cluster", async () => {
    const { call } = await serve({}, client({ sources: ['feed_scan'] }));
    const body = await json(call('/api/v1/quotas'));
    expect(body).toEqual({
      feeds: [
        {
          feed: 'feed_scan',
          limits: '4/minute, 500/day',
          windows: [
            { window: 'minute', limit: 4, remaining: 4 },
            { window: 'day', limit: 500, remaining: 500 },
          ],
          shared: false,
        },
      ],
    });
  });

  it('POST /alerts stores; GET /alerts pages and filters by minSeverity (a name) and since', async () => {
    const { call } = await serve();
    for (const [severity, timestamp] of [
      ['low', '2026-01-01T00:00:00Z'],
      ['high', '2026-02-01T00:00:00Z'],
      ['critical', '2026-03-01T00:00:00Z'],
    ] as const) {
      const created = await call(
        '/api/v1/alerts',
        post({ title: `alert ${severity}`, severity, indicators: [{ type: 'ip', value: LISTED }], timestamp }),
      );
      expect(created.status).toBe(201);
    }
    const high = await json(call('/api/v1/alerts?minSeverity=high&limit=1'));
    expect(high.items.map((a: { severity: string }) => a.severity)).toEqual(['critical']);
    const next = await json(call(`/api/v1/alerts?minSeverity=HIGH&limit=1&cursor=${high.nextCursor}`));
    expect(next.items.map((a: { severity: string }) => a.severity)).toEqual(['high']);
    expect(next.nextCursor).toBeUndefined();
    const since = await json(call('/api/v1/alerts?since=2026-01-15T00:00:00Z'));
    expect(since.items).toHaveLength(2);
    const bad = await call('/api/v1/alerts', post({ title: '', severity: 'severe' }));
    expect(bad.status).toBe(400);
    expect((await json(bad)).errors.map((e: { path: string }) => e.path).sort()).toEqual(['severity', 'title']);
    const numeric = await call('/api/v1/alerts?minSeverity=8');
    expect(numeric.status).toBe(400);
    expect(await json(numeric)).toMatchObject({
      errors: [{ path: 'minSeverity', message: expect.stringContaining('expected one of informational, low') }],
    });
  });

  it('GET /health and GET /metrics', async () => {
    const { call, base } = await serve();
    await call('/api/v1/threats/scan', post({ indicator: LISTED }));
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await json(health)).toMatchObject({ status: 'ok', live: true, ready: true });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(
      /threatlib_http_requests_total\{method="POST",route="\/api\/v1\/threats\/scan",status="200"\} 1/,
    );
    expect(metrics).toContain('threatlib_http_request_duration_seconds_bucket');
  });

  it('GET /metrics answers 404 when the client turns metrics off (enterprise.monitoring.metrics: false)', async () => {
    const { call, base } = await serve({}, client({ enterprise: { monitoring: { metrics: false } } }));
    await call('/api/v1/threats/scan', post({ indicator: LISTED }));
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(404);
    expect(metrics.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await json(metrics)).toMatchObject({ title: 'Metrics disabled', detail: /enterprise\.monitoring\.metrics/ });
  });
});

describe('bad input gets a 4xx problem, never a 5xx', () => {
  it.each([
    ['malformed JSON', post('{"indicator": '), 400, 'malformed-json'],
    ['an empty JSON body', post(''), 400, 'malformed-json'],
    ['a wrong type', post({ indicator: 42 }), 400, 'validation'],
    ['an unknown field', post({ indicator: LISTED, extra: true }), 400, 'validation'],
    ['an invalid indicator', post({ indicator: '999.1.1.1' }), 400, 'invalid-indicator'],
    ['an unknown type', post({ indicator: LISTED, type: 'ipv5' }), 400, 'validation'],
    ['an oversize body', post({ indicator: 'a'.repeat(2_000_000) }), 413, 'payload-too-large'],
    [
      'the wrong media type',
      { method: 'POST', body: 'indicator=1.2.3.4', headers: { 'content-type': 'text/plain' } },
      415,
      'unsupported-media-type',
    ],
  ])('%s', async (_name, init, status, type) => {
    const { call } = await serve();
    const response = await call('/api/v1/threats/scan', init as RequestInit);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await json(response)).type).toBe(`https://threatlib.dev/problems/${type}`);
  });

  it('a known route with another method is a 405 problem naming the allowed ones', async () => {
    const { call } = await serve();
    const response = await call('/api/v1/threats/scan', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await json(response)).toMatchObject({ type: 'https://threatlib.dev/problems/method-not-allowed' });
  });

  it('a method fastify does not route (QUERY) on a known route is a 405, not a complaint about its body', async () => {
    const { call } = await serve();
    const response = await call('/api/v1/feeds/status', { method: 'QUERY' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('a "__proto__" key is refused with a problem that says so; a "constructor" key is kept', async () => {
    const { call } = await serve();
    const alert = { title: 't', severity: 'low', indicators: [{ type: 'ip', value: LISTED }] };
    const refused = await call(
      '/api/v1/alerts',
      post(`{"title":"t","severity":"low","metadata":{"x":{"__proto__":1}}}`),
    );
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({
      type: 'https://threatlib.dev/problems/validation',
      detail: expect.stringContaining('"__proto__"'),
    });
    const kept = await call('/api/v1/alerts', post({ ...alert, metadata: { constructor: { prototype: { a: 1 } } } }));
    expect(kept.status).toBe(201);
    const page = await json(call('/api/v1/alerts'));
    expect(page.items[0].metadata).toEqual({ constructor: { prototype: { a: 1 } } });
  });

  it('an unknown route is a 404 problem', async () => {
    const { call } = await serve();
    const response = await call('/api/v1/nothing');
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({
      type: 'https://threatlib.dev/problems/not-found',
      instance: '/api/v1/nothing',
    });
  });
});

describe('logging', () => {
  it("logs through the client's pino logger, category server, with no token in any line", async () => {
    const lines: string[] = [];
    const logger = createLogger(parseConfig({ sources: ['feed_urls'], logging: { level: 'info' } }).logging, {
      destination: { write: (line: string) => lines.push(line) },
    });
    const c = new ThreatClient(
      {
        sources: [],
        lists: [{ name: 'example', file: exampleBlocklistPath() }],
        security: { enforceHttps: false },
      } as ThreatConfig,
      { env: false, logger },
    );
    const { call } = await serve({ logRequests: true }, c);
    expect((await call('/api/v1/threats/scan', post({ indicator: LISTED }))).status).toBe(200);
    expect((await call('/api/v1/threats/scan', { ...post({ indicator: LISTED }), token: 'wrong-token' })).status).toBe(
      401,
    );
    const server = lines.map((line) => JSON.parse(line)).filter((line) => line.category === 'server');
    expect(server.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    expect(server.find((line) => line.msg === 'request completed')?.res?.statusCode).toBe(200);
    const all = lines.join('');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('wrong-token');
  });

  it('logs no line per request unless asked to', async () => {
    const lines: string[] = [];
    const logger = createLogger(parseConfig({ sources: ['feed_urls'], logging: { level: 'info' } }).logging, {
      destination: { write: (line: string) => lines.push(line) },
    });
    const c = new ThreatClient({ sources: ['feed_urls'], security: { enforceHttps: false } } as ThreatConfig, {
      env: false,
      logger,
    });
    const { call } = await serve({}, c);
    await call('/api/v1/feeds/status');
    // fastify's start-up line ("Server listening at ...") is there; no line carries a request.
    const server = lines.map((line) => JSON.parse(line)).filter((line) => line.category === 'server');
    expect(server.some((line) => /listening/.test(line.msg))).toBe(true);
    expect(server.filter((line) => line.reqId !== undefined)).toEqual([]);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After past the per-IP limit', async () => {
    const { call } = await serve({ rateLimit: { max: 3, windowMs: 60_000 } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('/api/v1/feeds/status')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await call('/api/v1/feeds/status');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await json(limited)).toMatchObject({ type: 'https://threatlib.dev/problems/rate-limited', status: 429 });
  });
});

describe('the client’s security.authentication', () => {
  it('basic: users with scrypt password hashes', async () => {
    const users = { analyst: await hashPassword('correct horse') };
    const { base } = await serve(
      { authentication: undefined },
      client({ security: { enforceHttps: false, authentication: { type: 'basic', users } } }),
    );
    const as = (user: string, password: string) =>
      fetch(`${base}/api/v1/feeds/status`, {
        headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
      });
    expect((await as('analyst', 'correct horse')).status).toBe(200);
    expect((await as('analyst', 'wrong')).status).toBe(401);
    expect((await as('nobody', 'correct horse')).status).toBe(401);
    expect((await fetch(`${base}/api/v1/feeds/status`)).headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('jwt: HS256 with issuer and audience checked', async () => {
    const secret = 'a-long-shared-secret-for-hs256-tests';
    const { base } = await serve(
      { authentication: undefined },
      client({
        security: {
          enforceHttps: false,
          authentication: { type: 'jwt', secret, issuer: 'https://idp.example', audience: 'threatlib' },
        },
      }),
    );
    const sign = (claims: { iss: string; aud: string }) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(claims.iss)
        .setAudience(claims.aud)
        .setSubject('svc')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
    const as = async (token: string) =>
      (await fetch(`${base}/api/v1/feeds/status`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await as(await sign({ iss: 'https://idp.example', aud: 'threatlib' }))).toBe(200);
    expect(await as(await sign({ iss: 'https://evil.example', aud: 'threatlib' }))).toBe(401);
    expect(await as(await sign({ iss: 'https://idp.example', aud: 'other' }))).toBe(401);
  });

  it('jwt: RS256 and ES256 through a JWKS URL', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwks = {
      keys: [
        { ...(await exportJWK(rsa.publicKey)), kid: 'rsa', alg: 'RS256', use: 'sig' },
        { ...(await exportJWK(ec.publicKey)), kid: 'ec', alg: 'ES256', use: 'sig' },
      ],
    };
    const keys = new APIServer({ port: 0, authentication: { type: 'none' } });
    // A tiny JWKS host: an open threatlib server is not one, so use node:http.
    const { createServer } = await import('node:http');
    const host = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks)),
    );
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(host.address() as { port: number }).port}/jwks.json`;
    try {
      const { base } = await serve(
        { authentication: undefined },
        client({
          security: { enforceHttps: false, authentication: { type: 'jwt', jwksUrl, issuer: 'https://idp.example' } },
        }),
      );
      const as = async (token: string) =>
        (await fetch(`${base}/api/v1/feeds/status`, { headers: { authorization: `Bearer ${token}` } })).status;
      const rs = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'rsa' })
        .setIssuer('https://idp.example')
        .setExpirationTime('5m')
        .sign(rsa.privateKey);
      const es = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'ec' })
        .setIssuer('https://idp.example')
        .setExpirationTime('5m')
        .sign(ec.privateKey);
      expect(await as(rs)).toBe(200);
      expect(await as(es)).toBe(200);
      const forged = `${rs.split('.').slice(0, 2).join('.')}.${createHash('sha256').update('x').digest('base64url')}`;
      expect(await as(forged)).toBe(401);
    } finally {
      host.close();
      void keys;
    }
  });
});

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document that a validator accepts, and a docs page', async () => {
    const { base } = await serve();
    const document = await json(fetch(`${base}/openapi.json`));
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document));
    expect('errors' in result ? result.errors : [], JSON.stringify(result)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/threats/scan',
        '/api/v1/threats/batch',
        '/api/v1/feeds/status',
        '/api/v1/proxy/{feedUrl}',
        '/api/v1/correlate',
        '/api/v1/alerts',
        '/health',
        '/metrics',
      ]),
    );
    const docs = await fetch(`${base}/docs`);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(await docs.text()).toContain('/api/v1/threats/scan');
  });
});
