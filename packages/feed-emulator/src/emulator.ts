import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Behaviour, EmulatedFeed, EmulatorRequest, EmulatorResponse, VendorApi } from './vendor-api.js';
import { abuseipdb } from './vendors/abuseipdb.js';
import { crowdsec } from './vendors/crowdsec.js';
import { otx } from './vendors/otx.js';
import { urlhaus } from './vendors/urlhaus.js';
import { virustotal } from './vendors/virustotal.js';

/** The API key every emulated vendor refuses with its own 401 answer. */
export const INVALID_KEY = 'invalid-key';

/** The vendors the emulator serves, by feed id. */
export const VENDORS: Readonly<Record<EmulatedFeed, VendorApi>> = {
  feed_urls: urlhaus,
  feed_otx: otx,
  feed_abuse: abuseipdb,
  feed_cti: crowdsec,
  feed_scan: virustotal,
};

/** How the emulator treats one indicator (optionally only for some feeds). */
export interface Script {
  behaviour: Behaviour;
  /** Delay before answering, in ms. */
  latencyMs?: number;
  /** Only these feeds behave so; the others use the default. */
  feeds?: EmulatedFeed[];
}

/** A request the emulator received, as recorded for assertions. */
export interface RecordedRequest extends EmulatorRequest {
  feed: EmulatedFeed;
  /** The indicator it asked about, when the request was valid enough to name one. */
  indicator?: string;
  /** The full path as sent, with the vendor prefix and query string. */
  url: string;
}

/** Options of {@link startFeedEmulator}. */
export interface FeedEmulatorOptions {
  /** Port to listen on (default: any free port). */
  port?: number;
  /** What an unscripted indicator gets (default `not_found`). */
  defaultBehaviour?: Behaviour | ((feed: EmulatedFeed, indicator: string) => Behaviour);
  /** Delay before every answer, in ms (default 0). */
  latencyMs?: number;
  /** How many requests to keep in `requests` (default 10,000; counters are never capped). */
  keepRequests?: number;
}

/** A running emulator. */
export interface FeedEmulator {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** The base URL of each feed's API, for `apiKeys[feed].endpoint`. */
  endpoints: Readonly<Record<EmulatedFeed, string>>;
  /** Makes `indicator` behave as told (for every feed, or those in `script.feeds`). */
  script(indicator: string, script: Behaviour | Script): void;
  /** The most recent requests, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** How many requests reached a feed (all feeds when omitted), optionally about one indicator. */
  count(feed?: EmulatedFeed, indicator?: string): number;
  /** Forgets recorded requests and counters (scripts stay). */
  resetCounters(): void;
  /** Forgets scripts too. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts the emulator on 127.0.0.1. */
export async function startFeedEmulator(options: FeedEmulatorOptions = {}): Promise<FeedEmulator> {
  const scripts = new Map<string, Script[]>();
  const requests: RecordedRequest[] = [];
  const counts = new Map<string, number>();
  const keep = options.keepRequests ?? 10_000;
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const behaviourFor = (feed: EmulatedFeed, indicator: string): { behaviour: Behaviour; latencyMs: number } => {
    const script = scripts.get(indicator)?.find((s) => !s.feeds || s.feeds.includes(feed));
    const fallback =
      typeof options.defaultBehaviour === 'function'
        ? options.defaultBehaviour(feed, indicator)
        : (options.defaultBehaviour ?? 'not_found');
    return { behaviour: script?.behaviour ?? fallback, latencyMs: script?.latencyMs ?? options.latencyMs ?? 0 };
  };

  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const vendor = Object.values(VENDORS).find(
      (v) => url.pathname === v.prefix || url.pathname.startsWith(`${v.prefix}/`),
    );
    const body = await readBody(req);
    if (!vendor) {
      send(res, { status: 404, body: { error: `no emulated API at ${url.pathname}` } });
      return;
    }
    const request: EmulatorRequest = {
      method: req.method ?? 'GET',
      path: url.pathname.slice(vendor.prefix.length) || '/',
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    const routed = vendor.route(request);
    const indicator = 'indicator' in routed ? routed.indicator : undefined;
    requests.push({
      ...request,
      feed: vendor.feed,
      url: req.url ?? '',
      ...(indicator === undefined ? {} : { indicator }),
    });
    if (requests.length > keep) requests.splice(0, requests.length - keep);
    bump(vendor.feed);
    if (indicator !== undefined) bump(`${vendor.feed}\u0000${indicator}`);
    if ('response' in routed) {
      send(res, routed.response);
      return;
    }

    const key = vendor.key(request);
    if ((vendor.requiresKey && !key) || key === INVALID_KEY) {
      send(res, vendor.respond('unauthorized', routed.indicator, request));
      return;
    }
    const { behaviour, latencyMs } = behaviourFor(vendor.feed, routed.indicator);
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (behaviour === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (behaviour === 'malformed') {
      send(res, { status: 200, headers: { 'content-type': 'application/json' }, body: '{"truncated": tru' });
      return;
    }
    send(res, vendor.respond(behaviour, routed.indicator, request));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(res, { status: 500, body: { emulatorError: (error as Error).message } });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    port,
    endpoints: Object.fromEntries(Object.values(VENDORS).map((v) => [v.feed, `${url}${v.prefix}`])) as Record<
      EmulatedFeed,
      string
    >,
    script(indicator, script) {
      const entry = typeof script === 'string' ? { behaviour: script } : script;
      // A script for particular feeds goes before a general one, so both can coexist for one indicator.
      const list = (scripts.get(indicator) ?? []).filter(
        (s) => JSON.stringify(s.feeds ?? null) !== JSON.stringify(entry.feeds ?? null),
      );
      list.push(entry);
      list.sort((a, b) => (a.feeds ? 0 : 1) - (b.feeds ? 0 : 1));
      scripts.set(indicator, list);
    },
    get requests() {
      return requests;
    },
    count(feed, indicator) {
      if (feed === undefined) {
        return Object.keys(VENDORS).reduce((sum, f) => sum + (counts.get(f) ?? 0), 0);
      }
      return counts.get(indicator === undefined ? feed : `${feed}\u0000${indicator}`) ?? 0;
    },
    resetCounters() {
      requests.length = 0;
      counts.clear();
    },
    reset() {
      requests.length = 0;
      counts.clear();
      scripts.clear();
    },
    async close() {
      for (const res of hanging) res.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function send(res: ServerResponse, response: EmulatorResponse): void {
  if (res.headersSent || res.destroyed) return;
  const isText = typeof response.body === 'string';
  const body = response.body === undefined ? '' : isText ? (response.body as string) : JSON.stringify(response.body);
  res.writeHead(response.status, {
    ...(response.body !== undefined && !isText ? { 'content-type': 'application/json' } : {}),
    ...response.headers,
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
