// What a server answers a request node's HTTP parser refuses, or one that never finishes: a problem document with
// the hardening headers, then the connection closed. The REST server's and the webhook receiver's tests check the
// same through their own servers; here, on a bare node server.
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { problemClientErrorHandler } from './client-errors.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(options: { headersTimeout?: number; requestTimeout?: number } = {}) {
  const logged: Array<{ code: string | undefined; status: number }> = [];
  const server = createServer(
    { connectionsCheckingInterval: 50, ...options, maxHeaderSize: 4096 },
    (_request, response) => response.end('ok'),
  );
  server.on(
    'clientError',
    problemClientErrorHandler((entry) => logged.push(entry)),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, logged };
}

/** Sends `raw` and resolves with everything the server wrote before closing the connection. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

const problemOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('problemClientErrorHandler', () => {
  it('answers a request the parser refuses with a 400 problem saying what to fix, hardened, and closes', async () => {
    const { port, logged } = await serve();
    const answer = await exchange(port, 'GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('Content-Type: application/problem+json; charset=utf-8\r\n');
    expect(answer).toContain('x-content-type-options: nosniff\r\n');
    expect(answer).toContain('cache-control: no-store\r\n');
    expect(answer).toContain('Connection: close\r\n');
    expect(problemOf(answer)).toEqual({
      type: 'https://threatlib.dev/problems/malformed-request',
      title: 'Malformed request',
      status: 400,
      detail: 'the request is not valid HTTP/1.1: Content-Length is given twice, or together with Transfer-Encoding',
    });
    expect(logged).toEqual([{ code: 'HPE_UNEXPECTED_CONTENT_LENGTH', status: 400 }]);
  });

  it('answers headers larger than the server reads with 431, never quoting them', async () => {
    const { port } = await serve();
    const answer = await exchange(port, `GET /x HTTP/1.1\r\nHost: a\r\nX-Secret: ${'s'.repeat(8000)}\r\n\r\n`);
    expect(problemOf(answer)).toMatchObject({ type: 'https://threatlib.dev/problems/headers-too-large', status: 431 });
    expect(answer).not.toContain('sss');
  });

  it('answers headers that do not arrive in time with 408', async () => {
    const { port } = await serve({ headersTimeout: 200, requestTimeout: 300 });
    const answer = await exchange(port, 'GET /x HTTP/1.1\r\nHost: a\r\n');
    expect(problemOf(answer)).toEqual({
      type: 'https://threatlib.dev/problems/request-timeout',
      title: 'Request timeout',
      status: 408,
      detail: 'the request did not arrive in time',
    });
  });
});
