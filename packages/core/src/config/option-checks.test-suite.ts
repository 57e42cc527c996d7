// What every-option.test.ts observes options with: feeds that record what the client hands them, and local servers
// (HTTP, HTTPS with a self-signed certificate, syslog over UDP and TCP, SMTP) that record what reaches them.
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { ThreatClient, type ThreatClientOptions } from '../client/threat-client.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from '../feeds/feed.js';
import { silentLogger } from '../logging/logger.js';
import { mergeConfig } from './merge-config.js';
import type { ThreatConfig } from './schema.js';

/** The indicator the probes are asked about. */
export const IP = '198.51.100.23';

/** One lookup a probe feed saw: what the client handed it. */
interface ProbeCall {
  indicator: string;
  apiKey: string | undefined;
  endpoint: string;
  options: Readonly<Record<string, unknown>>;
}

/** A feed whose answers a check chooses, recording every lookup. */
export interface ProbeFeed extends Feed {
  readonly calls: ProbeCall[];
  answer: (context: FeedLookupContext) => FeedLookupResult | Promise<FeedLookupResult>;
}

/** A feed answer: `malicious` with `score`, and whatever `extra` says. */
export function answer(verdict: FeedLookupResult['verdict'], score = 0.8, extra: Partial<FeedLookupResult> = {}) {
  return {
    status: 'ok',
    verdict,
    score,
    categories: [],
    tags: [],
    malwareFamilies: [],
    references: [],
    evidence: ['probe'],
    ...extra,
  } satisfies FeedLookupResult as FeedLookupResult;
}

/** A failed lookup with `status` (an `error` with status code 503 is retryable and counts against the breaker). */
export function failed(
  status: FeedLookupResult['status'],
  error: FeedLookupResult['error'] = { message: 'probe failed' },
) {
  return { ...answer('unknown', 0), status, error, evidence: [] } satisfies FeedLookupResult as FeedLookupResult;
}

function probeFeed(id = 'feed_probe'): ProbeFeed {
  const probe: ProbeFeed = {
    specificationVersion: 'v1',
    id,
    name: `Probe ${id}`,
    supportedTypes: ['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256', 'email'],
    requiresKey: false,
    defaultEndpoint: 'https://probe.example/api',
    calls: [],
    answer: () => answer('malicious'),
    async lookup(indicator, context) {
      probe.calls.push({
        indicator: indicator.value,
        apiKey: context.apiKey,
        endpoint: context.endpoint,
        options: context.options,
      });
      return probe.answer(context);
    },
  };
  return probe;
}

/**
 * Makes clients for the checks and stops them all at the end. Each client gets two probe feeds (`feed_probe`,
 * `feed_probe2`), no environment, and a silent logger unless the options say otherwise.
 */
export class Harness {
  readonly dir = mkdtempSync(join(tmpdir(), 'threatlib-every-option-'));
  readonly #clients: ThreatClient[] = [];
  #files = 0;

  /** A fresh path in the harness's directory. */
  path(name: string): string {
    this.#files += 1;
    return join(this.dir, `${this.#files}-${name}`);
  }

  client(config: ThreatConfig, options: ThreatClientOptions = {}) {
    const client = new ThreatClient(config, { env: false, logger: silentLogger, ...options });
    this.#clients.push(client);
    const probes = [probeFeed('feed_probe'), probeFeed('feed_probe2')] as const;
    for (const probe of probes) client.registerFeed(probe);
    return { client, probe: probes[0], probes };
  }

  /** Keeps a client made elsewhere (by `createVault`) so that `close()` stops it. */
  adopt(client: ThreatClient): ThreatClient {
    this.#clients.push(client);
    return client;
  }

  async close(): Promise<void> {
    for (const client of this.#clients.splice(0)) await client.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `base` with `fragments` laid over it, later ones winning (arrays replaced whole). */
export function configWith(base: object, ...fragments: object[]): ThreatConfig {
  return mergeConfig<ThreatConfig>(base, ...fragments);
}

/** One request an {@link HttpRecorder} received. */
export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback HTTP server that records requests and answers what `respond` says (204 by default). */
export class HttpRecorder {
  readonly requests: Recorded[] = [];
  respond: (request: Recorded) => { status: number; body?: string; delayMs?: number } = () => ({ status: 204 });
  readonly #server: HttpServer;

  constructor() {
    this.#server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(recorded);
        const reply = this.respond(recorded);
        const send = () => res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/** A loopback HTTPS server with a self-signed certificate (made with openssl), answering 200 `{}`. */
export class SelfSignedServer {
  readonly #server;

  constructor() {
    const dir = mkdtempSync(join(tmpdir(), 'threatlib-self-signed-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      this.#server = createHttpsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/** Syslog receivers on one loopback port: TCP and UDP, each keeping what it received. */
export class SyslogReceivers {
  tcpText = '';
  udpText = '';
  readonly #tcp: TcpServer = createTcpServer((socket) =>
    socket.on('data', (chunk: Buffer) => {
      this.tcpText += chunk.toString('utf8');
    }),
  );
  readonly #udp: UdpSocket = createSocket('udp4');

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#tcp.listen(0, '127.0.0.1', resolve));
    this.#udp.on('message', (message) => {
      this.udpText += `${message.toString('utf8')}\n`;
    });
    await new Promise<void>((resolve) => this.#udp.bind(this.port, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.#tcp.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.#tcp.close(resolve));
    await new Promise<void>((resolve) => this.#udp.close(() => resolve()));
  }
}

/** A loopback server speaking just enough RESP to refuse every command, keeping what clients sent. */
export class RespRecorder {
  received = '';
  readonly #server: TcpServer = createTcpServer((socket) =>
    socket.on('data', (chunk: Buffer) => {
      this.received += chunk.toString('utf8');
      socket.end('-ERR refused by the recorder\r\n');
    }),
  );

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/** A loopback TCP server that accepts connections and never answers: a server that hangs. */
export class SilentServer {
  readonly #sockets = new Set<Socket>();
  readonly #server: TcpServer = createTcpServer((socket) => {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/** One message an {@link SmtpRecorder} took. */
export interface Mail {
  from: string;
  to: string[];
  user: string | undefined;
  password: string | undefined;
}

/** A loopback SMTP server (no TLS) that takes every message and records its envelope and login. */
export class SmtpRecorder {
  readonly mails: Mail[] = [];
  readonly #server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    onAuth: (auth, _session, callback) => callback(null, { user: `${auth.username}\u0000${auth.password}` }),
    onData: (stream, session, callback) => {
      stream.resume();
      stream.on('end', () => {
        const [user, password] = typeof session.user === 'string' ? session.user.split('\u0000') : [];
        this.mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user,
          password,
        });
        callback();
      });
    },
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.#server.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A loopback port nothing listens on (it was free a moment ago). */
export async function deadPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Lets I/O callbacks run until `done()` holds, up to a deadline (I/O to wait for, not a clock to move). */
export async function until(done: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Real time passing, for the few checks whose option is a real timer (a request timeout, a flush interval). */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
