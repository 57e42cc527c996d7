import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a {@link Receiver} got. */
export interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How a receiver answers a request: a status (and headers), or `hold` to never answer. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hold';

/**
 * A webhook receiver for tests: records every request it gets (and every connection, so that a refusal can be
 * shown to have sent nothing) and answers as `answer` says (default 204).
 */
export class Receiver {
  readonly requests: Received[] = [];
  connections = 0;
  answer: (request: Received, index: number) => Answer = () => ({ status: 204 });
  readonly #server: Server;
  readonly #held = new Set<ServerResponse>();

  constructor() {
    this.#server = createServer((req, res) => this.#handle(req, res));
    this.#server.on('connection', () => {
      this.connections += 1;
    });
  }

  /** Listens on `host` (default 127.0.0.1) and `port` (default a free one). */
  async listen(host = '127.0.0.1', port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    return this;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** `http://<host>:<port><path>`. */
  url(path = '/hook', host = '127.0.0.1'): string {
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.port}${path}`;
  }

  async close(): Promise<void> {
    for (const res of this.#held) res.destroy();
    this.#held.clear();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const request = { method: req.method ?? '', url: req.url ?? '', headers, body: Buffer.concat(chunks).toString() };
      this.requests.push(request);
      const answer = this.answer(request, this.requests.length - 1);
      if (answer === 'hold') {
        this.#held.add(res);
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end();
    });
  }
}
