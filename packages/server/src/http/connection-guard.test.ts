// Connections cannot be held open by anyone without a token: a cap per client address, timeouts on headers, on the
// whole request and on idle keep-alive connections, and a refused request's body is not read to its end.
import { afterEach, describe, expect, it } from 'vitest';
import type { APIServer } from '../api-server.js';
import { heldConnection, rawExchange, requestFrom, startServer, TOKEN } from './raw-http.test-suite.js';

const running: APIServer[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

async function serve(options: Parameters<typeof startServer>[0] = {}) {
  const started = await startServer(options);
  running.push(started.server);
  return started;
}

describe('maxConnectionsPerAddress', () => {
  it('closes connections from one address past the cap at once; another address is unaffected', async () => {
    const { port, base } = await serve({ maxConnectionsPerAddress: 4 });
    const held = Array.from({ length: 10 }, () => heldConnection(port, '127.0.0.2'));
    cleanups.push(() => {
      for (const { socket } of held) socket.destroy();
    });
    await Promise.all(held.map((h) => h.connected));

    // Another address is served while the first one is at its cap.
    const other = await requestFrom('127.0.0.1', `${base}/api/v1/feeds/status`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(other.status).toBe(200);

    // The four kept connections are answered once their headers end; the six others had been closed.
    const outcomes = await Promise.all(held.map((h) => h.finish()));
    expect(outcomes.filter((o) => o === 'answered')).toHaveLength(4);
    expect(outcomes.filter((o) => o === 'closed')).toHaveLength(6);
  });

  it('counts a closed connection out: the address may connect again', async () => {
    const { port, base } = await serve({ maxConnectionsPerAddress: 1 });
    for (let round = 0; round < 3; round++) {
      // One at a time, each closed by the server after its answer (Connection: close), never more than one open.
      const answer = await requestFrom('127.0.0.2', `${base}/api/v1/feeds/status`, {
        headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' },
      });
      expect(answer.status).toBe(200);
    }
    const exchange = await rawExchange(
      port,
      `GET /api/v1/feeds/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
      { localAddress: '127.0.0.2', waitMs: 3_000 },
    );
    expect(exchange.response?.status).toBe(200);
  });
});

describe('a refused request with a body', () => {
  it('is answered 401 with Connection: close, and the rest of a trickled body is not waited for', async () => {
    const { port } = await serve();
    const exchange = await rawExchange(
      port,
      (socket) => {
        // Says a megabyte follows, sends a few bytes, and would trickle the rest forever.
        socket.write(
          'POST /api/v1/threats/scan HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n' +
            'Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"indicator":',
        );
      },
      { waitMs: 3_000 },
    );
    expect(exchange.response?.status, exchange.raw).toBe(401);
    expect(exchange.response?.headers.connection).toBe('close');
    expect(exchange.closed).toBe(true);
  });

  it('Expect: 100-continue invites the body only once the request is authenticated', async () => {
    const { port } = await serve();
    const ask = (token: string) =>
      `POST /api/v1/threats/scan HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 25\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n';
    const refused = await rawExchange(port, ask('wrong'), { waitMs: 3_000 });
    expect(refused.raw).not.toContain('100 Continue');
    expect(refused.response?.status).toBe(401);
    expect(refused.closed).toBe(true);

    const accepted = await rawExchange(
      port,
      (socket) => {
        socket.write(ask(TOKEN));
        socket.once('data', (chunk: Buffer) => {
          if (chunk.toString('latin1').startsWith('HTTP/1.1 100 Continue')) socket.write('{"indicator":"192.0.2.1"}');
        });
      },
      { waitMs: 3_000 },
    );
    expect(accepted.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  it('keeps a refused request without a body on its keep-alive connection', async () => {
    const { port } = await serve();
    const exchange = await rawExchange(port, 'GET /api/v1/feeds/status HTTP/1.1\r\nHost: x\r\n\r\n', {
      untilResponse: true,
    });
    expect(exchange.response?.status).toBe(401);
    expect(exchange.response?.headers.connection).toBe('keep-alive');
  });
});

describe('timeouts', () => {
  it('keepAliveTimeout: an idle keep-alive connection is closed', async () => {
    const { port } = await serve({ keepAliveTimeout: 100 });
    const exchange = await rawExchange(
      port,
      `GET /api/v1/feeds/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
      { waitMs: 4_000 },
    );
    expect(exchange.response?.status).toBe(200);
    expect(exchange.closed).toBe(true);
  });

  it('by default, answers say the keep-alive timeout is 5 s', async () => {
    const { port } = await serve();
    const exchange = await rawExchange(
      port,
      `GET /api/v1/feeds/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
      { untilResponse: true },
    );
    expect(exchange.response?.headers['keep-alive']).toBe('timeout=5');
  });

  it('requestTimeout: a request whose body trickles (with a valid token) is cut with 408', async () => {
    const { port } = await serve({ requestTimeout: 300, headersTimeout: 200 });
    const exchange = await rawExchange(
      port,
      (socket) => {
        socket.write(
          `POST /api/v1/threats/scan HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
        );
        // A byte every 50 ms keeps the socket busy: only the whole-request deadline ends it.
        const trickle = setInterval(() => socket.writable && socket.write(' '), 50);
        socket.once('close', () => clearInterval(trickle));
      },
      { waitMs: 4_000 },
    );
    expect(exchange.response?.status, exchange.raw).toBe(408);
    expect(exchange.closed).toBe(true);
  });
});

describe('options', () => {
  it.each([
    [
      { headersTimeout: -1 },
      /headersTimeout: headersTimeout is in milliseconds, at least 100 \(or 0 to turn it off\); got -1/,
    ],
    [{ requestTimeout: 1000.5 }, /requestTimeout: requestTimeout is a whole number of milliseconds; got 1000\.5/],
    [
      { headersTimeout: 5_000, requestTimeout: 1_000 },
      /headersTimeout \(5000\) must not exceed requestTimeout \(1000\)/,
    ],
    [
      { maxConnectionsPerAddress: -2 },
      /maxConnectionsPerAddress: maxConnectionsPerAddress is a whole number, 0 or more; got -2/,
    ],
    [{ headersTimeout: 40_000 }, /headersTimeout: headersTimeout \(40000\) must not exceed requestTimeout \(30000\)/],
  ])('refuses options %j', async (options, message) => {
    const { APIServer } = await import('../api-server.js');
    expect(() => new APIServer({ port: 0, ...options })).toThrow(message);
  });
});
