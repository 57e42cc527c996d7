// Requests refused before any route or hook runs: fastify's router refuses a path it cannot decode or a parameter
// past maxParamLength, and node refuses an Expect it does not know. Each gets a problem document with the hardening
// headers of every other answer, and none repeats the request's path or headers (a client may have put a token
// there by mistake).
import { afterEach, describe, expect, it } from 'vitest';
import type { APIServer } from '../api-server.js';
import { rawExchange, startServer, TOKEN } from './raw-http.test-suite.js';

const running: APIServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

async function serve() {
  const started = await startServer();
  running.push(started.server);
  return started;
}

const SECRET = 'sk-live-0123456789abcdef';

function expectHardenedProblem(raw: string, response: Awaited<ReturnType<typeof rawExchange>>['response']) {
  if (!response) throw new Error(`no response, only: ${JSON.stringify(raw)}`);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.headers).toMatchObject({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'content-security-policy': expect.stringContaining("default-src 'none'"),
  });
  expect(raw).not.toContain(SECRET);
  return JSON.parse(response.body) as { type: string; status: number; detail: string };
}

describe('paths the router cannot take', () => {
  it.each([
    ['broken percent-encoding in a route parameter', `/api/v1/alerts/${SECRET}%zz`],
    ['broken percent-encoding on no route', `/${SECRET}%zz`],
    ['an overlong UTF-8 sequence', `/api/v1/alerts/${SECRET}%c0`],
  ])('%s: 400 problem, the path not repeated', async (_name, path) => {
    const { port } = await serve();
    for (const token of [undefined, TOKEN]) {
      const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
      const { raw, response } = await rawExchange(
        port,
        `GET ${path} HTTP/1.1\r\nHost: threatlib.test\r\n${auth}Connection: close\r\n\r\n`,
        { waitMs: 3_000 },
      );
      expect(response?.status, raw).toBe(400);
      const problem = expectHardenedProblem(raw, response);
      expect(problem).toMatchObject({ type: 'https://threatlib.dev/problems/malformed-request', status: 400 });
      expect(problem.detail).toMatch(/percent-encoding/);
    }
  });

  it('a route parameter longer than the router reads: 414 problem, the path not repeated', async () => {
    const { port } = await serve();
    const { raw, response } = await rawExchange(
      port,
      `GET /api/v1/alerts/${SECRET}${'a'.repeat(1100)} HTTP/1.1\r\nHost: threatlib.test\r\nConnection: close\r\n\r\n`,
      { waitMs: 3_000 },
    );
    expect(response?.status, raw).toBe(414);
    const problem = expectHardenedProblem(raw, response);
    expect(problem).toMatchObject({ type: 'https://threatlib.dev/problems/malformed-request', status: 414 });
  });
});

describe('an Expect the server does not know', () => {
  it('417 problem, the expectation not repeated, and the body never invited', async () => {
    const { port } = await serve();
    const { raw, response } = await rawExchange(
      port,
      `POST /api/v1/alerts HTTP/1.1\r\nHost: threatlib.test\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 200-${SECRET}\r\n\r\n`,
      { waitMs: 3_000 },
    );
    expect(response?.status, raw).toBe(417);
    expect(raw).not.toContain('100 Continue');
    const problem = expectHardenedProblem(raw, response);
    expect(problem).toMatchObject({ type: 'https://threatlib.dev/problems/malformed-request', status: 417 });
    expect(problem.detail).toMatch(/100-continue/);
  });
});
