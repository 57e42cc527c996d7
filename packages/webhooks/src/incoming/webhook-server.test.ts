import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookManager } from '../manager/webhook-manager.js';

/*
 * Attacks on the manager's own server that never get as far as a signature check: slow bodies, huge bodies declared
 * or streamed, oversized headers and bytes that are not HTTP. Each is answered with a problem document (or the
 * connection is closed) and no handler runs.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const running: WebhookManager[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((m) => m.stop()));
});

async function server(requestTimeoutMs = 30_000) {
  const manager = new WebhookManager({
    server: { port: 0, requestTimeoutMs },
    authentication: { type: 'hmac', secret: SECRET },
    limits: { bodyBytes: 1024 },
  });
  let runs = 0;
  manager.on('threat-update', () => {
    runs++;
  });
  running.push(manager);
  await manager.start();
  const { port } = new URL(manager.address as string);
  return { manager, port: Number(port), runs: () => runs };
}

/** Writes `chunks` to a raw connection (each after the previous was flushed) and resolves with all it read back. */
function raw(port: number, chunks: Array<string | Buffer>, options: { endAfterWrite?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (data) => {
      received += data.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while we still write (a refused body): what it answered first is what counts.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve(received);
      else reject(error);
    });
    socket.on('close', () => resolve(received));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        await new Promise<void>((done) => socket.write(chunk, () => done()));
      }
      if (options.endAfterWrite) socket.end();
    });
  });
}

/**
 * Headers a forger can send: a fresh timestamp and a well-formed signature, which only the HMAC over the body can
 * refuse. What comes before that check (deadlines, body limits) is tested with them.
 */
const forged = () =>
  `webhook-id: msg_forged\r\nwebhook-timestamp: ${Math.floor(Date.now() / 1000)}\r\nwebhook-signature: v1,${Buffer.alloc(32).toString('base64')}\r\n`;

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
const problemOf = (response: string) =>
  JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { detail: string };

describe('the webhook server under attack', () => {
  it('cuts a body sent too slowly with a 408 problem and closes the connection', async () => {
    const { port, runs } = await server(1_000);
    const response = await raw(port, [
      `POST /webhooks HTTP/1.1\r\nHost: x\r\n${forged()}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"type":`,
    ]);
    expect(statusOf(response)).toBe(408);
    expect(response).toContain('x-content-type-options: nosniff');
    expect(problemOf(response).detail).toBe('the request did not arrive in time');
    expect(runs()).toBe(0);
  });

  it('refuses a declared body over the limit at once with 413, before reading it', async () => {
    const { port, runs } = await server();
    const response = await raw(port, [
      `POST /webhooks HTTP/1.1\r\nHost: x\r\n${forged()}Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{`,
    ]);
    expect(statusOf(response)).toBe(413);
    expect(problemOf(response).detail).toBe('the body is larger than 1024 bytes');
    expect(runs()).toBe(0);
  });

  it('refuses a chunked body that grows past the limit with 413', async () => {
    const { port, runs } = await server();
    const chunk = `400\r\n${'x'.repeat(1024)}\r\n`;
    const response = await raw(port, [
      `POST /webhooks HTTP/1.1\r\nHost: x\r\n${forged()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      chunk,
      chunk,
      chunk,
      '0\r\n\r\n',
    ]);
    expect(statusOf(response)).toBe(413);
    expect(runs()).toBe(0);
  });

  it('answers oversized headers with 431 and bytes that are not HTTP with 400, as problems', async () => {
    const { port } = await server();
    const huge = await raw(port, [`POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(statusOf(huge)).toBe(431);
    const garbage = await raw(port, ['\u0000\u0001GARBAGE / HTTP/9.9\r\n\r\n']);
    expect(statusOf(garbage)).toBe(400);
    expect(garbage).toContain('application/problem+json');
    const smuggled = await raw(port, [
      'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ]);
    expect(statusOf(smuggled)).toBe(400);
  });

  it('says what made a request invalid HTTP, as the REST server does, without quoting it', async () => {
    const { port } = await server();
    const response = await raw(port, [
      'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ]);
    expect(statusOf(response)).toBe(400);
    expect(problemOf(response).detail).toBe(
      'the request is not valid HTTP/1.1: Content-Length is given twice, or together with Transfer-Encoding',
    );
  });

  it('refuses a signature header repeated, or three hundred signatures (all the headers hold), with the same 401', async () => {
    const { port, runs } = await server();
    const body = '{"type":"threat-update","data":{"indicator":"x"}}';
    const head = `POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nwebhook-id: m\r\nwebhook-timestamp: ${Math.floor(Date.now() / 1000)}\r\n`;
    const repeated = await raw(port, [
      `${head}webhook-signature: v1,a\r\nwebhook-signature: v1,b\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expect(statusOf(repeated)).toBe(401);
    const many = Array.from({ length: 300 }, () => 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=').join(' ');
    const flood = await raw(port, [`${head}webhook-signature: ${many}\r\nConnection: close\r\n\r\n${body}`]);
    expect(statusOf(flood)).toBe(401);
    expect(runs()).toBe(0);
  });

  // Replaying issue 12 on this server: fastify's router answered these with its own JSON, without the hardening
  // headers, quoting the path (a sender may put a token in it).
  it.each([
    ['a path the router cannot decode', '/webhooks/sk-live-0123456789%zz', 400],
    ["a path segment past the router's limit", `/webhooks/sk-live-0123456789${'a'.repeat(1200)}`, 414],
  ])('answers %s with a problem, the path not repeated', async (_name, path, status) => {
    const { port, runs } = await server();
    const body = '{"type":"threat-update","data":{"indicator":"x"}}';
    const response = await raw(port, [
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expect(statusOf(response)).toBe(status);
    expect(response).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(response).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(response).toMatch(/\r\ncache-control: no-store\r\n/i);
    expect(response).not.toContain('sk-live-0123456789');
    expect(problemOf(response)).toMatchObject({ type: 'https://threatlib.dev/problems/malformed-request', status });
    expect(runs()).toBe(0);
  });
});
