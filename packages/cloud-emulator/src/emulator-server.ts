import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { CloudRequest, CloudResponse, CloudService } from './cloud-service.js';

/** Options of {@link startEmulatorServer}. */
export interface EmulatorServerOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Serve HTTPS with this key and certificate (PEM); plain HTTP without. */
  tls?: { key: string; cert: string };
  /** How many requests to keep in `requests` (default 10,000). */
  keepRequests?: number;
}

/** A request the emulator received, with the service that took it and the status it answered. */
export interface RecordedRequest extends CloudRequest {
  service: string | undefined;
  status: number | undefined;
}

/** A running emulator: one server, the services reached by path. */
export interface EmulatorServer {
  /** `http://127.0.0.1:<port>` (or `https://`). */
  readonly url: string;
  readonly port: number;
  /** Every request received, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Forgets requests and every service's state. */
  reset(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 serving `services`. */
export async function startEmulatorServer(
  services: readonly CloudService[],
  options: EmulatorServerOptions = {},
): Promise<EmulatorServer> {
  const keep = options.keepRequests ?? 10_000;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const request: CloudRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      raw,
      body: raw.toString('utf8'),
    };
    const service = services.find((s) => s.handles(request));
    const recorded: RecordedRequest = { ...request, service: service?.service, status: undefined };
    requests.push(recorded);
    if (requests.length > keep) requests.splice(0, requests.length - keep);
    const response: CloudResponse = service
      ? await service.handle(request)
      : { status: 404, body: { message: `no emulated cloud API at ${request.method} ${request.path}` } };
    recorded.status = response.status;
    send(res, response);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      send(res, { status: 500, body: { emulatorError: (error as Error).message } });
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, listener) : createHttpServer(listener);
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that gives up mid-handshake is not the emulator's error.
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    reset() {
      requests.length = 0;
      for (const service of services) service.reset();
    },
    async close() {
      const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : undefined;
      server.closeAllConnections?.();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function send(res: ServerResponse, response: CloudResponse): void {
  if (res.headersSent || res.destroyed) return;
  const { body } = response;
  const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
  const payload = body === undefined ? '' : isRaw ? (body as string | Buffer) : JSON.stringify(body);
  res.writeHead(response.status, {
    ...(body !== undefined && !isRaw ? { 'content-type': 'application/json' } : {}),
    ...response.headers,
  });
  res.end(payload);
}
