import { connect, type Socket } from 'node:net';
import { ConfigurationError, type Logger } from '@threatlib/core';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookManagerOptions } from '../manager/manager-options.js';
import { WebhookManager } from '../manager/webhook-manager.js';

/*
 * Every way in is attack surface: the manager's own server limits what one address can make it do before a signature
 * is verified. A request whose headers cannot carry a valid signature is refused before its body is read (no HMAC
 * over a megabyte for nothing), an address whose signatures keep failing is shut out for a while, requests and
 * connections per address are capped, and slow headers are cut.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const running: WebhookManager[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(running.splice(0).map((manager) => manager.stop()));
});

async function server(serverOptions: Partial<NonNullable<WebhookManagerOptions['server']>> = {}, logger?: Logger) {
  const manager = new WebhookManager(
    { server: { port: 0, ...serverOptions }, authentication: { type: 'hmac', secret: SECRET } },
    logger ? { logger } : {},
  );
  let runs = 0;
  manager.on('threat-update', () => {
    runs++;
  });
  running.push(manager);
  await manager.start();
  return { manager, port: Number(new URL(manager.address as string).port), runs: () => runs };
}

let ids = 0;
/** A request as raw HTTP: signed by the reference library, or with `signature` in its place (a forgery). */
function request(options: { path?: string; signature?: string | null; body?: string } = {}): string {
  const body = options.body ?? '{"type":"threat-update","data":{"indicator":"evil.example"}}';
  const id = `msg_${++ids}`;
  const now = new Date();
  const signature =
    options.signature === undefined ? new Webhook(SECRET).sign(id, now, body) : (options.signature ?? undefined);
  const signing =
    signature === undefined
      ? ''
      : `webhook-id: ${id}\r\nwebhook-timestamp: ${Math.floor(now.getTime() / 1000)}\r\nwebhook-signature: ${signature}\r\n`;
  return `POST ${options.path ?? '/webhooks'} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${signing}Connection: close\r\n\r\n${body}`;
}

/** A signature of the right form that no secret made. */
const FORGED = `v1,${Buffer.alloc(32, 7).toString('base64')}`;

/** Sends `text` from the loopback address `from` and resolves with all the server sent back before closing. */
function send(port: number, text: string, from = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.push(socket);
    let received = '';
    socket.on('data', (data) => {
      received += data.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve(received);
      else reject(error);
    });
    socket.on('close', () => resolve(received));
    socket.on('connect', () => socket.write(text));
  });
}

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
const headerOf = (response: string, name: string) =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, 'i').exec(response)?.[1];
const problemOf = (response: string) =>
  JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { type: string; status: number; detail: string };

describe("the manager's own server, before any signature is verified", () => {
  it('refuses a request whose headers carry no plausible signature at once, its body never read', async () => {
    const { manager, port, runs } = await server();
    // A megabyte announced and not one byte of it sent: answered anyway, and the connection closed.
    const unsigned = await send(
      port,
      'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n',
    );
    expect(statusOf(unsigned)).toBe(401);
    expect(headerOf(unsigned, 'connection')).toBe('close');
    // A well-formed signature with a timestamp an hour old: refused as well, the body still to come.
    const stale = await send(
      port,
      `POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\nwebhook-id: msg_old\r\nwebhook-timestamp: ${Math.floor(Date.now() / 1000) - 3600}\r\nwebhook-signature: ${FORGED}\r\n\r\n`,
    );
    expect(statusOf(stale)).toBe(401);
    expect(problemOf(stale).detail).toBe('the request is not signed as this endpoint requires');
    expect(manager.stats.unauthorized).toBe(2);
    expect(runs()).toBe(0);
  });

  it('shuts out an address whose signatures failed failedSignatureLimit.max times: 429 even signed; others unaffected', async () => {
    const { manager, port, runs } = await server({ failedSignatureLimit: { max: 3, windowMs: 60_000 } });
    expect(statusOf(await send(port, request({ signature: FORGED }), '127.0.0.2'))).toBe(401);
    expect(statusOf(await send(port, request({ signature: null }), '127.0.0.2'))).toBe(401);
    expect(statusOf(await send(port, request({ signature: FORGED }), '127.0.0.2'))).toBe(401);

    const blocked = await send(port, request(), '127.0.0.2');
    expect(statusOf(blocked)).toBe(429);
    expect(problemOf(blocked)).toMatchObject({ type: 'https://threatlib.dev/problems/rate-limited', status: 429 });
    expect(Number(headerOf(blocked, 'retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(headerOf(blocked, 'retry-after'))).toBeLessThanOrEqual(60);
    expect(runs()).toBe(0);

    expect(statusOf(await send(port, request(), '127.0.0.3'))).toBe(204);
    expect(runs()).toBe(1);
    expect(manager.stats).toMatchObject({ unauthorized: 3, limited: 1, handled: 1 });
  });

  it('limits the requests of one address (rateLimit), 404s included, with a 429 problem', async () => {
    const { manager, port } = await server({ rateLimit: { max: 3, windowMs: 60_000 } });
    expect(statusOf(await send(port, request({ path: '/nothing-here' }), '127.0.0.2'))).toBe(404);
    expect(statusOf(await send(port, request(), '127.0.0.2'))).toBe(204);
    expect(statusOf(await send(port, request({ path: '/nothing-here' }), '127.0.0.2'))).toBe(404);
    const limited = await send(port, request(), '127.0.0.2');
    expect(statusOf(limited)).toBe(429);
    expect(problemOf(limited)).toMatchObject({ type: 'https://threatlib.dev/problems/rate-limited', status: 429 });
    expect(headerOf(limited, 'x-content-type-options')).toBe('nosniff');
    expect(statusOf(await send(port, request({ path: '/nothing-here' }), '127.0.0.2'))).toBe(429);
    expect(statusOf(await send(port, request(), '127.0.0.3'))).toBe(204);
    expect(manager.stats).toMatchObject({ handled: 2, limited: 1 });
  });

  it('caps the connections one address holds (maxConnectionsPerAddress), logging it once', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (_obj: object, msg?: string) => void warnings.push(msg ?? ''),
      error: () => {},
    };
    const { port } = await server({ maxConnectionsPerAddress: 2 }, logger);
    const idle = () => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
      sockets.push(socket);
      return new Promise<Socket>((resolve) => socket.once('connect', () => resolve(socket)));
    };
    const held = [await idle(), await idle()];
    // Past the cap: closed before a byte of it is read.
    expect(await send(port, request(), '127.0.0.2')).toBe('');
    expect(await send(port, request(), '127.0.0.2')).toBe('');
    expect(warnings).toEqual([
      'webhook server: 127.0.0.2 holds 2 connections (server.maxConnectionsPerAddress); closing its new ones',
    ]);
    expect(statusOf(await send(port, request(), '127.0.0.3'))).toBe(204);
    expect(held.every((socket) => !socket.destroyed)).toBe(true);
  });

  it('cuts a request whose headers do not arrive within headersTimeoutMs with a 408 problem', async () => {
    const { port } = await server({ headersTimeoutMs: 300 });
    const response = await send(port, 'POST /webhooks HTTP/1.1\r\nHost: x\r\nwebhook-id: msg_');
    expect(statusOf(response)).toBe(408);
    expect(problemOf(response).detail).toBe('the request did not arrive in time');
  });

  it('takes the limits off only when told, and refuses a headers deadline past the request deadline', async () => {
    const { port } = await server({ rateLimit: false, failedSignatureLimit: false });
    for (let i = 0; i < 12; i++) expect(statusOf(await send(port, request({ signature: FORGED })))).toBe(401);
    expect(statusOf(await send(port, request()))).toBe(204);
    const error = (() => {
      try {
        new WebhookManager({
          server: { port: 0, requestTimeoutMs: 5_000, headersTimeoutMs: 6_000 },
          authentication: { type: 'hmac', secret: SECRET },
        });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('webhooks.server.headersTimeoutMs: must not exceed requestTimeoutMs');
    expect(
      () =>
        new WebhookManager({
          server: { port: 0, rateLimit: { max: 0 } },
          authentication: { type: 'hmac', secret: SECRET },
        }),
    ).toThrow(/webhooks\.server\.rateLimit/);
  });
});
