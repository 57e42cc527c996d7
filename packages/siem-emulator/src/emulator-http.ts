// What every vendor emulator's server does around the vendors' own logic: read a request whole, answer it (objects as
// JSON), and listen on the loopback address, plain or TLS, closing every connection when asked. The SIEM emulator
// and the cloud emulator (`@threatlib/cloud-emulator`) both serve through it.
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** A request as the emulator received it. */
export interface EmulatorRequest {
  method: string;
  /** Path without the query string, percent-decoding left to the vendor. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body as sent (after nothing: a vendor that accepts gzip decodes it itself). */
  raw: Buffer;
  /** `raw` as UTF-8. */
  body: string;
  /** Epoch ms when it arrived. */
  receivedAt: number;
}

/** An answer. Objects are sent as JSON, strings and buffers as they are. */
export interface EmulatorResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Reads `req` whole into an {@link EmulatorRequest}. */
export async function readEmulatorRequest(req: IncomingMessage): Promise<EmulatorRequest> {
  const url = new URL(req.url ?? '/', 'http://emulator.invalid');
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    raw,
    body: raw.toString('utf8'),
    receivedAt: Date.now(),
  };
}

/**
 * Writes `response` unless an answer has started or the connection is gone: an object body as JSON (typed
 * `jsonType`), a string or buffer as it is, then the response's own headers.
 */
export function sendEmulatorResponse(
  res: ServerResponse,
  response: EmulatorResponse,
  jsonType = 'application/json; charset=UTF-8',
): void {
  if (res.headersSent || res.destroyed) return;
  const { body } = response;
  const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
  const payload = body === undefined ? '' : isRaw ? (body as string | Buffer) : JSON.stringify(body);
  res.writeHead(response.status, {
    ...(body !== undefined && !isRaw ? { 'content-type': jsonType } : {}),
    ...response.headers,
  });
  res.end(payload);
}

/** A server {@link listenOnLoopback} started. */
export interface LoopbackServer {
  readonly server: Server;
  readonly port: number;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/**
 * Serves `listener` on 127.0.0.1 (`port`, default any free one): HTTPS with `tls`, plain HTTP without. A client that
 * gives up mid-handshake is not the emulator's error, and is ignored.
 */
export async function listenOnLoopback(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  options: { port?: number | undefined; tls?: { key: string; cert: string } | undefined },
): Promise<LoopbackServer> {
  const { tls } = options;
  const sockets = new Set<Socket>();
  const server: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : undefined;
      server.closeAllConnections?.();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
