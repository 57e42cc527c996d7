// Token guessing is bounded: failed authentications are counted per client address before authentication runs, and
// an address that fails too often is refused (429, every request, a valid token included) for a while. Another
// address is not affected.

import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { APIServer } from '../api-server.js';
import { offlineClient, rawExchange, requestFrom, startServer, TOKEN } from '../http/raw-http.test-suite.js';
import { AuthFailureLimiter } from './auth-failure-limiter.js';

describe('AuthFailureLimiter', () => {
  const clock = () => {
    let now = 1_000_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('blocks an address for blockMs once it reaches max failures within windowMs; others are not affected', () => {
    const time = clock();
    const limiter = new AuthFailureLimiter({ max: 3, windowMs: 10_000, blockMs: 60_000 }, { now: time.now });
    expect(limiter.recordFailure('a')).toBe(0);
    expect(limiter.recordFailure('a')).toBe(0);
    expect(limiter.blockedFor('a')).toBe(0);
    expect(limiter.recordFailure('a')).toBe(60_000);
    time.advance(1_000);
    expect(limiter.blockedFor('a')).toBe(59_000);
    expect(limiter.blockedFor('b')).toBe(0);
    time.advance(59_000);
    expect(limiter.blockedFor('a')).toBe(0);
    // A fresh start after the block: one failure does not block again.
    expect(limiter.recordFailure('a')).toBe(0);
  });

  it('forgets failures older than the window', () => {
    const time = clock();
    const limiter = new AuthFailureLimiter({ max: 3, windowMs: 10_000, blockMs: 60_000 }, { now: time.now });
    limiter.recordFailure('a');
    limiter.recordFailure('a');
    time.advance(10_001);
    expect(limiter.recordFailure('a')).toBe(0);
    expect(limiter.recordFailure('a')).toBe(0);
    expect(limiter.recordFailure('a')).toBe(60_000);
  });

  it('a failure while blocked does not extend the block', () => {
    const time = clock();
    const limiter = new AuthFailureLimiter({ max: 1, windowMs: 10_000, blockMs: 60_000 }, { now: time.now });
    limiter.recordFailure('a');
    time.advance(30_000);
    expect(limiter.recordFailure('a')).toBe(30_000);
  });

  it('keeps at most maxAddresses entries, forgetting an address that is not blocked first', () => {
    const time = clock();
    const limiter = new AuthFailureLimiter(
      { max: 2, windowMs: 10_000, blockMs: 60_000 },
      { now: time.now, maxAddresses: 3 },
    );
    limiter.recordFailure('blocked');
    limiter.recordFailure('blocked');
    for (let i = 0; i < 100; i++) limiter.recordFailure(`other-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(3);
    expect(limiter.blockedFor('blocked')).toBe(60_000);
  });

  it.each([
    [{ max: 0 }, /authFailureLimit.max must be a whole number, 1 or more/],
    [{ windowMs: -5 }, /authFailureLimit.windowMs must be a whole number of milliseconds, 1 or more/],
    [{ blockMs: Number.NaN }, /authFailureLimit.blockMs must be a whole number of milliseconds, 1 or more/],
  ])('refuses %j', (limit, message) => {
    expect(() => new AuthFailureLimiter(limit)).toThrow(message);
  });
});

describe('the server', () => {
  const running: APIServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.stop()));
  });
  async function serve(...args: Parameters<typeof startServer>) {
    const started = await startServer(...args);
    running.push(started.server);
    return started;
  }
  const as = (base: string, from: string, token: string | undefined) =>
    requestFrom(
      from,
      `${base}/api/v1/feeds/status`,
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    );

  it('refuses every request from an address that failed max times (429, Retry-After), not another address', async () => {
    const { base } = await serve({ authFailureLimit: { max: 3, windowMs: 60_000, blockMs: 120_000 } });
    // A request without credentials guesses nothing and is not counted; each wrong token is.
    const statuses = [];
    for (const token of ['wrong-1', undefined, 'wrong-2', undefined, 'wrong-3', 'wrong-4', undefined]) {
      statuses.push((await as(base, '127.0.0.2', token)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);

    const valid = await as(base, '127.0.0.2', TOKEN);
    expect(valid.status).toBe(429);
    expect(Number(valid.headers['retry-after'])).toBeGreaterThan(100);
    expect(Number(valid.headers['retry-after'])).toBeLessThanOrEqual(120);
    expect(valid.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(valid.body)).toMatchObject({
      type: 'https://threatlib.dev/problems/rate-limited',
      status: 429,
      detail: expect.stringMatching(/failed authentication/),
    });

    expect((await as(base, '127.0.0.1', TOKEN)).status).toBe(200);
    expect((await as(base, '127.0.0.1', 'wrong')).status).toBe(401);
  });

  it('a blocked address with a body gets its connection closed', async () => {
    const { base } = await serve({ authFailureLimit: { max: 1 } });
    await as(base, '127.0.0.2', 'wrong');
    const answer = await requestFrom('127.0.0.2', `${base}/api/v1/threats/scan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"indicator":"1.2.3.4"}',
    });
    expect(answer.status).toBe(429);
    expect(answer.headers.connection).toBe('close');
  });

  it('unauthenticated requests count toward the per-address rate limit', async () => {
    const { base } = await serve({ rateLimit: { max: 3, windowMs: 60_000 }, authFailureLimit: { max: 100 } });
    for (let i = 0; i < 3; i++) expect((await as(base, '127.0.0.2', `wrong-${i}`)).status).toBe(401);
    expect((await as(base, '127.0.0.2', TOKEN)).status).toBe(429);
    expect((await as(base, '127.0.0.1', TOKEN)).status).toBe(200);
  });

  // Requests sent together (pipelined in one packet) are all read before any answer is written: the count must hold
  // for them too, whether a refusal is decided at once (a wrong server token) or takes time (a JWT signature).
  const SECRET = 'a-long-shared-secret-for-hs256-tests';
  const pipelined = (authorizations: string[]) =>
    authorizations
      .map((authorization) => `GET /api/v1/feeds/status HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\n\r\n`)
      .join('');
  const statusesOf = (raw: string) => [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  const jwt = (secret: string) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('svc')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(secret));

  it.each([
    ['wrong server tokens (refused at once)', 'bearer', async (i: number) => `Bearer wrong-${i}`],
    [
      'JWTs signed with another key (refused once verified)',
      'jwt',
      async () => `Bearer ${await jwt('another-secret-of-the-same-length!!')}`,
    ],
  ] as const)('30 pipelined %s: 10 are 401, the other 20 are 429', async (_name, kind, authorization) => {
    const client =
      kind === 'jwt'
        ? offlineClient({ security: { enforceHttps: false, authentication: { type: 'jwt', secret: SECRET } } })
        : offlineClient();
    const { port } = await serve({}, client);
    const headers = await Promise.all(Array.from({ length: 30 }, (_, i) => authorization(i)));
    const exchange = await rawExchange(port, pipelined(headers), { localAddress: '127.0.0.4', waitMs: 1_500 });
    const statuses = statusesOf(exchange.raw);
    expect(statuses).toHaveLength(30);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it('30 pipelined valid JWTs are all answered 200', async () => {
    const client = offlineClient({
      security: { enforceHttps: false, authentication: { type: 'jwt', secret: SECRET } },
    });
    const { port } = await serve({}, client);
    const token = await jwt(SECRET);
    const exchange = await rawExchange(port, pipelined(Array.from({ length: 30 }, () => `Bearer ${token}`)), {
      localAddress: '127.0.0.4',
      waitMs: 1_500,
    });
    expect(statusesOf(exchange.raw)).toEqual(Array.from({ length: 30 }, () => 200));
  });
});
