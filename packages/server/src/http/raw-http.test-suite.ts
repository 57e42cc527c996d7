// What the server's hardening tests share: a threatlib server on loopback, requests sent from a chosen loopback
// address, and raw exchanges over a socket (malformed requests no HTTP client would send).
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { APIServer, type APIServerOptions } from '../api-server.js';
import { exampleBlocklistPath } from '../cli/embedded-config.js';

export const TOKEN = 'test-token-0123456789';

/** A client on the shipped example blocklist: no feed is asked, nothing leaves the machine. */
export function offlineClient(extra: Partial<ThreatConfig> = {}): ThreatClient {
  return new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'example', file: exampleBlocklistPath() }],
      security: { enforceHttps: false },
      ...extra,
    } as ThreatConfig,
    { env: false, logger: silentLogger },
  );
}

/** Starts a server with bearer `TOKEN` on 127.0.0.1 (reachable from every 127.x address); `stop` in `afterEach`. */
export async function startServer(
  options: APIServerOptions = {},
  client = offlineClient(),
): Promise<{ server: APIServer; port: number; base: string }> {
  const server = new APIServer({
    port: 0,
    host: '127.0.0.1',
    authentication: { type: 'bearer', tokens: [TOKEN] },
    ...options,
  });
  server.mount('/api/v1', client);
  const base = await server.start();
  return { server, port: Number(new URL(base).port), base };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request with node:http from `localAddress` (a loopback address: the server sees it as the client's), on a
 * connection of its own unless an agent is given.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: string;
    agent?: import('node:http').Agent;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: init.method ?? 'GET',
        headers: init.headers,
        localAddress,
        ...(init.agent ? { agent: init.agent } : { agent: false }),
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(init.body);
  });
}

export interface RawExchange {
  /** Everything the server sent before closing (or before `waitMs` ran out). */
  raw: string;
  /** Whether the server closed the connection within `waitMs`. */
  closed: boolean;
  /** The first response, parsed; undefined when none came. */
  response?: Answer;
}

/**
 * Connects from `localAddress`, lets `drive` write to the socket (raw bytes, possibly a little at a time), and
 * collects what comes back until the server closes the connection or `waitMs` passes (then the test closes it).
 */
export function rawExchange(
  port: number,
  drive: string | Buffer | ((socket: Socket) => void),
  options: { localAddress?: string; waitMs?: number; untilResponse?: boolean } = {},
): Promise<RawExchange> {
  const { localAddress = '127.0.0.1', waitMs = 5_000, untilResponse = false } = options;
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const response = parseResponse(raw);
      if (!closed) socket.destroy();
      resolve({ raw, closed, ...(response ? { response } : {}) });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('connect', () => {
      if (typeof drive === 'function') drive(socket);
      else socket.write(drive);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (untilResponse && parseResponse(Buffer.concat(chunks).toString('latin1'))) finish(false);
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
  });
}

/** The first HTTP/1.1 response in `raw` (status, lower-cased headers, body by Content-Length), if complete. */
function parseResponse(raw: string): Answer | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = raw.slice(end + 4, end + 4 + length);
  if (Buffer.byteLength(body, 'latin1') < length) return undefined;
  return { status, headers, body };
}

/**
 * A connection that sends the start of a request and stops (slowloris): `finish()` later ends the headers, and
 * resolves with whether the server answers on it or had closed it (refused, or timed out).
 */
export function heldConnection(
  port: number,
  localAddress: string,
): { socket: Socket; connected: Promise<void>; finish: () => Promise<'answered' | 'closed'> } {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  let answered = false;
  let closed = false;
  const outcome = new Promise<'answered' | 'closed'>((resolve) => {
    socket.once('data', () => {
      answered = true;
      resolve('answered');
    });
    socket.once('close', () => {
      closed = true;
      resolve(answered ? 'answered' : 'closed');
    });
  });
  socket.on('error', () => {});
  const connected = new Promise<void>((resolve) => {
    socket.once('connect', () => {
      socket.write('GET /api/v1/feeds/status HTTP/1.1\r\nHost: threatlib.test\r\n');
      resolve();
    });
    socket.once('close', () => resolve());
  });
  return {
    socket,
    connected,
    finish: () => {
      if (!closed && !socket.destroyed) socket.write('\r\n');
      return outcome;
    },
  };
}
