// Requests node's HTTP parser refuses before fastify sees them (and requests that never finish) are answered with
// a problem document, as every other error, and the connection is closed. Sent raw: no HTTP client sends these.
import { afterEach, describe, expect, it } from 'vitest';
import type { APIServer } from '../api-server.js';
import { rawExchange, startServer, TOKEN } from './raw-http.test-suite.js';

const running: APIServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

async function serve(options: Parameters<typeof startServer>[0] = {}) {
  const started = await startServer(options);
  running.push(started.server);
  return started;
}

const SCAN = 'POST /api/v1/threats/scan HTTP/1.1\r\nHost: threatlib.test\r\nContent-Type: application/json\r\n';

describe('requests the HTTP parser refuses', () => {
  it.each([
    [
      'a header larger than the server reads',
      `GET /health HTTP/1.1\r\nHost: threatlib.test\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers-too-large',
    ],
    [
      'NUL in a header value',
      'GET /health HTTP/1.1\r\nHost: threatlib.test\r\nX-A: a\u0000b\r\n\r\n',
      400,
      'malformed-request',
    ],
    [
      'two different Content-Lengths',
      `${SCAN}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      400,
      'malformed-request',
    ],
    [
      'Content-Length together with Transfer-Encoding',
      `${SCAN}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      'malformed-request',
    ],
    [
      'more body than the Content-Length says',
      `${SCAN}Authorization: Bearer ${TOKEN}\r\nContent-Length: 2\r\n\r\n{}xyz`,
      400,
      'malformed-request',
    ],
    [
      'a raw space in the query',
      'GET /health?x=a b HTTP/1.1\r\nHost: threatlib.test\r\n\r\n',
      400,
      'malformed-request',
    ],
    ['an HTTP/1.1 request without Host', 'GET /health HTTP/1.1\r\n\r\n', 400, 'malformed-request'],
    [
      'a method token with a control character',
      'GE\u0001T /health HTTP/1.1\r\nHost: x\r\n\r\n',
      400,
      'malformed-request',
    ],
  ])('%s: a problem document, connection closed', async (_name, payload, status, type) => {
    const { port } = await serve();
    const exchange = await rawExchange(port, payload, { waitMs: 3_000 });
    expect(exchange.closed).toBe(true);
    const response = exchange.response;
    if (!response) throw new Error(`no response, only: ${JSON.stringify(exchange.raw)}`);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers.connection).toBe('close');
    // The same hardening as every answer fastify writes.
    expect(response.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'content-security-policy': expect.stringContaining("default-src 'none'"),
    });
    const problem = JSON.parse(response.body);
    expect(problem).toMatchObject({ type: `https://threatlib.dev/problems/${type}`, status });
    expect(problem.title).toEqual(expect.any(String));
    expect(problem.detail).toEqual(expect.any(String));
  });
});

describe('requests that never finish', () => {
  it.each([
    ['a connection that sends nothing', ''],
    ['headers that never end', 'GET /health HTTP/1.1\r\nHost: threatlib.test\r\n'],
    [
      'a body that never arrives (with a valid token)',
      `${SCAN}Authorization: Bearer ${TOKEN}\r\nContent-Length: 100\r\n\r\n{"indicator":`,
    ],
  ])('%s: 408 problem, connection closed', async (_name, payload) => {
    const { port } = await serve({ headersTimeout: 200, requestTimeout: 400 });
    const exchange = await rawExchange(port, payload, { waitMs: 3_000 });
    expect(exchange.closed).toBe(true);
    expect(exchange.response?.status, exchange.raw).toBe(408);
    expect(exchange.response?.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(exchange.response?.body ?? '{}')).toMatchObject({
      type: 'https://threatlib.dev/problems/request-timeout',
      status: 408,
    });
  });
});
