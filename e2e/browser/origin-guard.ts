// Keeps a browser's pages on the machine: every request (and WebSocket) a page makes to an origin other than the
// allowed ones is refused before it leaves the browser, and recorded, so the test that caused it can fail saying
// which URL it was. Used by core's browser project (browser-project.ts) and by the Node-driven page tests.
import type { BrowserContext } from 'playwright';

/** The requests to other origins a guarded browser context refused. */
export interface OriginGuard {
  /** The origins pages may reach (`http://127.0.0.1:8080`). */
  readonly allowed: readonly string[];
  /** The refused URLs, oldest first, since the last {@link OriginGuard.take}. */
  readonly refused: readonly string[];
  /** Returns the refused URLs and forgets them. */
  take(): string[];
}

/** The origin a URL is compared by: a WebSocket's `ws:`/`wss:` counts as the `http:`/`https:` origin it shares. */
function originOf(url: URL): string {
  const scheme = url.protocol === 'ws:' ? 'http:' : url.protocol === 'wss:' ? 'https:' : url.protocol;
  return `${scheme}//${url.host}`;
}

/**
 * Refuses, in every page of `context`, each request and WebSocket to an origin not in `allowed` (`data:` and `blob:`
 * URLs stay in the page and are let through); the refused request fails in the page as a network error.
 */
export async function guardOrigins(context: BrowserContext, allowed: readonly string[]): Promise<OriginGuard> {
  const origins = allowed.map((origin) => originOf(new URL(origin)));
  let refused: string[] = [];
  const elsewhere = (url: URL) =>
    url.protocol !== 'data:' && url.protocol !== 'blob:' && !origins.includes(originOf(url));
  await context.route(elsewhere, async (route) => {
    refused.push(route.request().url());
    await route.abort('blockedbyclient');
  });
  await context.routeWebSocket(elsewhere, async (socket) => {
    refused.push(socket.url());
    await socket.close({ code: 1008, reason: 'another origin' });
  });
  return {
    allowed: origins,
    get refused() {
      return [...refused];
    },
    take() {
      const taken = refused;
      refused = [];
      return taken;
    },
  };
}
