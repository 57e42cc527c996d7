// The feeds of core's browser tests (vitest.browser.config.ts): the feed emulator, in the test runner's Node.js
// process, reached by a page the way a page reaches real feeds, through `browser.corsProxy`. The proxy is a route of
// the test server itself (the page's own origin, which the origin guard lets through), following the cors-anywhere
// convention: `<origin>/__threatlib-feed-proxy/` followed by the full feed URL. It forwards only to the emulator.
// Commands let a page's test script the emulator and read what it received.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Behaviour, type FeedEmulator, type Script, startFeedEmulator } from '@threatlib/feed-emulator';
import type { BrowserCommand } from 'vitest/node';

/** The path of the proxy route on the test server's origin. */
const FEED_PROXY_PATH = '/__threatlib-feed-proxy/';
/** Headers a page's request carries that are the page's or the proxy's own, never sent on to a feed. */
const NOT_FORWARDED = new Set(['host', 'origin', 'referer', 'cookie', 'connection', 'content-length']);

// One emulator for the whole process: vitest may evaluate its configuration (and so this module) more than once, and
// the proxy route and the commands must see the same emulator.
const SHARED = Symbol.for('threatlib.core-browser.feed-emulator');
const shared = globalThis as { [SHARED]?: Promise<FeedEmulator> };
/** The emulator, started on first use and kept for the run. */
function emulator(): Promise<FeedEmulator> {
  shared[SHARED] ??= startFeedEmulator();
  return shared[SHARED];
}

async function body(request: IncomingMessage): Promise<Buffer | undefined> {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Forwards `request` (its URL is the full feed URL, the route's prefix removed) to the emulator. */
async function forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const target = (request.url ?? '').replace(/^\//, '');
    const feeds = await emulator();
    if (!Object.values(feeds.endpoints).some((endpoint) => target.startsWith(endpoint))) {
      response.writeHead(403, { 'content-type': 'text/plain' }).end(`not a feed of the emulator: ${target}`);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!NOT_FORWARDED.has(name) && typeof value === 'string') headers[name] = value;
    }
    const sent = await body(request);
    const answer = await fetch(target, { method: request.method ?? 'GET', headers, ...(sent ? { body: sent } : {}) });
    const passed: Record<string, string> = {};
    for (const name of ['content-type', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining']) {
      const value = answer.headers.get(name);
      if (value !== null) passed[name] = value;
    }
    response.writeHead(answer.status, passed).end(Buffer.from(await answer.arrayBuffer()));
  } catch (error) {
    response.writeHead(502, { 'content-type': 'text/plain' }).end(`feed proxy: ${(error as Error).message}`);
  }
}

/** What the plugin needs of Vite's dev server (typed here: core does not depend on Vite). */
interface DevServer {
  middlewares: { use(path: string, handle: (request: IncomingMessage, response: ServerResponse) => void): void };
  httpServer: { once(event: 'close', listener: () => void): unknown } | null;
}

/** The Vite plugin that adds the proxy route to the test server, and stops the emulator with it. */
export function feedProxyPlugin(): { name: string; configureServer(server: DevServer): void } {
  return {
    name: 'threatlib-feed-proxy',
    configureServer(server) {
      server.middlewares.use(FEED_PROXY_PATH, (request, response) => {
        void forward(request, response);
      });
      server.httpServer?.once('close', () => {
        void shared[SHARED]?.then((feeds) => feeds.close());
      });
    },
  };
}

/** `feeds()`: the emulator's endpoint of each feed, and the proxy's path on the page's origin. */
const feeds: BrowserCommand<[]> = async () => ({ endpoints: (await emulator()).endpoints, proxyPath: FEED_PROXY_PATH });

/** `scriptFeeds(indicator, script)`: makes `indicator` behave as told, as `FeedEmulator.script` does. */
const scriptFeeds: BrowserCommand<[indicator: string, script: Behaviour | Script]> = async (
  _context,
  indicator,
  script,
) => {
  (await emulator()).script(indicator, script);
};

/** `feedRequests(indicator)`: the requests the emulator received about `indicator`: feed, and the key headers. */
const feedRequests: BrowserCommand<[indicator: string]> = async (_context, indicator) =>
  (await emulator()).requests
    .filter((request) => request.indicator === indicator)
    .map((request) => ({
      feed: request.feed,
      key: request.headers['x-otx-api-key'] ?? request.headers.key ?? request.headers['x-apikey'] ?? null,
    }));

/** The commands the pages of core's browser project call (declared for them in interface-examples.browser.test.ts). */
export const feedCommands = { feeds, scriptFeeds, feedRequests };
