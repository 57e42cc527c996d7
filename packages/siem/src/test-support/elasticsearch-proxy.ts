import { createServer, request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does to one of the next requests. */
type ProxyFault =
  /** Elasticsearch's own answer when its write queue is full: 429 es_rejected_execution_exception. */
  | { kind: 'busy'; retryAfter?: number }
  /** Never answers. */
  | { kind: 'hang' }
  /** Forwards, then lets `rewrite` change the answer's JSON body (a real answer made to say something else). */
  | { kind: 'rewrite'; rewrite: (body: Record<string, unknown>) => Record<string, unknown> };

/** A request the proxy saw. */
interface ProxiedRequest {
  method: string;
  path: string;
  body: string;
}

/** A running proxy. */
export interface ElasticsearchProxy {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly requests: readonly ProxiedRequest[];
  /** Applies `fault` to the next `count` requests (whose path starts with `path`, when given). */
  failNext(count: number, fault: ProxyFault, path?: string): void;
  /** How many requests a `hang` fault has held since the proxy started, answered or not. */
  hung(): number;
  close(): Promise<void>;
}

const REJECTED = {
  error: {
    root_cause: [
      {
        type: 'es_rejected_execution_exception',
        reason:
          'rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=1024, max_coordinating_and_primary_bytes=53687091]',
      },
    ],
    type: 'es_rejected_execution_exception',
    reason:
      'rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=1024, max_coordinating_and_primary_bytes=53687091]',
  },
  status: 429,
};

/**
 * An HTTP proxy in front of the real Elasticsearch that can make chosen requests fail the way Elasticsearch does
 * (or not answer), so that the connector's retries and timeouts are tested against the real server.
 */
export async function startElasticsearchProxy(target: { host: string; port: number }): Promise<ElasticsearchProxy> {
  const requests: ProxiedRequest[] = [];
  const faults: { fault: ProxyFault; path: string | undefined }[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let hung = 0;

  const forward = (method: string, path: string, headers: IncomingHttpHeaders, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: target.host,
          port: target.port,
          method,
          path,
          headers: { ...headers, host: `${target.host}:${target.port}`, connection: 'close' },
          // A connection per request: a kept-alive one that Elasticsearch has since closed would fail the request.
          agent: false,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }),
          );
          answer.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '/';
      const method = req.method ?? 'GET';
      requests.push({ method, path, body: body.toString('utf8') });
      const index = faults.findIndex((f) => f.path === undefined || path.startsWith(f.path));
      const fault = index >= 0 ? faults.splice(index, 1)[0]?.fault : undefined;
      if (fault?.kind === 'hang') {
        hanging.add(res);
        hung += 1;
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (fault?.kind === 'busy') {
        res.writeHead(429, {
          'content-type': 'application/json',
          'x-elastic-product': 'Elasticsearch',
          ...(fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) }),
        });
        res.end(method === 'HEAD' ? undefined : JSON.stringify(REJECTED));
        return;
      }
      forward(method, path, req.headers, body).then(
        (answer) => {
          let payload = answer.body;
          const headers = { ...answer.headers };
          if (fault?.kind === 'rewrite') {
            payload = Buffer.from(JSON.stringify(fault.rewrite(JSON.parse(payload.toString('utf8')))));
            headers['content-length'] = String(payload.byteLength);
          }
          res.writeHead(answer.status, headers);
          res.end(payload);
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    requests,
    failNext(count, fault, path) {
      for (let i = 0; i < count; i++) faults.push({ fault, path });
    },
    hung() {
      return hung;
    },
    async close() {
      for (const res of hanging) res.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
