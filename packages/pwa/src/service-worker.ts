// The `pwa` options as a service-worker module built on Workbox (injectManifest style: this is the worker's source;
// the build puts the list of files to precache where `self.__WB_MANIFEST` stands). An application's worker calls
// installServiceWorker(manifest, options) once (see the README); @threatlib/server's dashboard's is its src/sw.ts.
//
// - the app shell (the files the build lists) is precached at install: hashed files are served from the cache
//   (their names change with their content); the page itself (index.html) and the API's reads (GET under apiBase)
//   follow `cacheStrategy`: `network-first` (default; the cache when the network fails) or `cache-first`;
// - `offlineData` keeps the verdicts of recent scans (verdict-store.ts); a scan made offline answers with those known;
// - `syncOnReconnect` keeps scans and alert actions made offline in a queue (Workbox's, in IndexedDB) and sends them
//   once each, in order, when the network is back: on Background Sync's `sync` event where the browser has it, and
//   when a page says it is online again or has started (the `replay` message), which covers browsers without it.
//   Queued requests are kept without their Authorization header; the worker adds the token a page gave it (held in
//   memory only), so no token is written to disk.
import { Queue } from 'workbox-background-sync';
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, matchPrecache, type PrecacheEntry, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import { type PageMessage, QUEUED_HEADER, type WorkerMessage } from './messages.js';
import type { PwaOptions } from './pwa-options.js';
import { forgetVerdicts, keepVerdicts, type ScanResult, storedVerdict } from './verdict-store.js';

/** `POST /threats/batch`'s answer, as far as the worker reads it. */
interface BatchResponse {
  results: Array<{ input: string; ok: true; result: ScanResult } | { input: string; ok: false }>;
}

declare const self: ServiceWorkerGlobalScope;

const DEFAULT_KEPT_VERDICTS = 500;
const API_CACHE = 'threatlib-api';
const PAGE_CACHE = 'threatlib-page';

/**
 * Installs the worker's handlers: precache `manifest` (the build's list, `self.__WB_MANIFEST`), the page's and the
 * API's routes, the verdicts kept and the offline queue, as `options` say (`enabled` is the page's: see
 * `registerServiceWorker`). Call it once, at the top of the application's worker.
 */
export function installServiceWorker(manifest: Array<PrecacheEntry | string>, options: PwaOptions = {}): void {
  const strategy = options.cacheStrategy ?? 'network-first';
  const kept =
    options.offlineData === false
      ? 0
      : typeof options.offlineData === 'number'
        ? options.offlineData
        : DEFAULT_KEPT_VERDICTS;
  const queueing = options.syncOnReconnect !== false;
  const api = new URL(options.apiBase ?? '../api/v1/', self.location.href).pathname;
  let token: string | undefined;

  self.skipWaiting();
  clientsClaim();
  cleanupOutdatedCaches();

  // The page: network-first asks the server and falls back to the precached copy; cache-first is the precache route.
  if (strategy === 'network-first') {
    registerRoute(
      new NavigationRoute(
        new NetworkFirst({
          cacheName: PAGE_CACHE,
          plugins: [{ handlerDidError: async () => (await matchPrecache('index.html')) ?? undefined }],
        }),
        { allowlist: [new RegExp(`^${escapeRegExp(new URL('./', self.location.href).pathname)}`)] },
      ),
    );
  }
  precacheAndRoute(manifest, { directoryIndex: 'index.html', ignoreURLParametersMatching: [/.*/] });

  // The API's reads, except those the page wants from the server itself (`cache: 'no-store'`: the sign-in check).
  const reads =
    strategy === 'cache-first' ? new CacheFirst({ cacheName: API_CACHE }) : new NetworkFirst({ cacheName: API_CACHE });
  registerRoute(
    ({ url, request }) =>
      url.origin === self.location.origin &&
      url.pathname.startsWith(api) &&
      request.method === 'GET' &&
      request.cache !== 'no-store',
    reads,
  );

  const queue = new Queue('threatlib-offline-actions', {
    maxRetentionTime: 7 * 24 * 60,
    onSync: async () => {
      await replay();
    },
  });

  const notify = async (message: WorkerMessage) => {
    for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) {
      client.postMessage(message);
    }
  };

  /** Keeps the verdicts of a scan's answer. */
  const keepAnswer = async (path: string, sent: unknown, body: unknown) => {
    if (kept === 0) return;
    if (path === 'threats/batch') {
      const answers = (body as BatchResponse).results.flatMap((item) =>
        item.ok ? [[item.input, item.result] as const] : [],
      );
      await keepVerdicts(answers, kept);
    } else if (path === 'threats/scan') {
      await keepVerdicts([[String((sent as { indicator?: unknown })?.indicator ?? ''), body as ScanResult]], kept);
    }
  };

  // One replay at a time: the sync event, a page's `replay` and the worker's start share it, so nothing is sent twice.
  let replaying: Promise<void> | undefined;
  const replay = (): Promise<void> => {
    replaying ??= drain().finally(() => {
      replaying = undefined;
    });
    return replaying;
  };
  const drain = async () => {
    if (!token) return; // no page has given one yet: the queue waits for the next page's `replay`
    for (let entry = await queue.shiftRequest(); entry; entry = await queue.shiftRequest()) {
      const headers = new Headers(entry.request.headers);
      headers.set('authorization', `Bearer ${token}`);
      const sentText = await entry.request.clone().text();
      let response: Response;
      try {
        response = await fetch(new Request(entry.request, { headers }));
      } catch (error) {
        await queue.unshiftRequest(entry);
        throw error; // still offline: Background Sync tries again later, a page's `online` sooner
      }
      // Not taken (signed out, rate-limited, the server failing): kept, first in line, for the next replay.
      if (response.status === 401 || response.status === 403 || response.status === 429 || response.status >= 500) {
        await queue.unshiftRequest(entry);
        break;
      }
      const body = await response.json().catch(() => undefined);
      const path = new URL(entry.request.url).pathname.slice(api.length);
      if (response.ok) await keepAnswer(path, safeJson(sentText), body);
      await notify({
        type: 'replayed',
        url: entry.request.url,
        method: entry.request.method,
        status: response.status,
        body,
        queuedAt: entry.timestamp ?? 0,
      });
    }
    await notify({ type: 'queue', waiting: await queue.size() });
  };

  /** Sends a scan or an alert action; offline, queues it (when asked to) and answers 202 with the verdicts known. */
  const sendOrQueue = async ({ request, url }: { request: Request; url: URL }): Promise<Response> => {
    const path = url.pathname.slice(api.length);
    const sentText = await request.clone().text();
    try {
      const response = await fetch(request.clone());
      if (response.ok) {
        const body = await response
          .clone()
          .json()
          .catch(() => undefined);
        if (body !== undefined) await keepAnswer(path, safeJson(sentText), body);
      }
      return response;
    } catch (error) {
      if (!queueing) throw error;
      const headers = new Headers(request.headers);
      headers.delete('authorization');
      await queue.pushRequest({
        request: new Request(request.url, { method: request.method, headers, body: sentText }),
      });
      const stored = path.startsWith('threats/') ? await storedFor(safeJson(sentText)) : [];
      const waiting = await queue.size();
      await notify({ type: 'queue', waiting });
      return new Response(JSON.stringify({ queued: true, waiting, stored }), {
        status: 202,
        headers: { 'content-type': 'application/json', [QUEUED_HEADER]: 'true' },
      });
    }
  };

  /** The kept verdicts of the indicators a scan body names. */
  const storedFor = async (sent: unknown): Promise<Array<{ input: string; storedAt: number; result: ScanResult }>> => {
    if (kept === 0) return [];
    const body = sent as { indicator?: unknown; indicators?: unknown[] } | undefined;
    const inputs = (body?.indicators ?? [body?.indicator]).map((item) =>
      typeof item === 'string' ? item : String((item as { indicator?: unknown } | undefined)?.indicator ?? ''),
    );
    const out = [];
    for (const input of inputs) {
      const found = input ? await storedVerdict(input) : undefined;
      if (found) out.push({ input, storedAt: found.storedAt, result: found.result });
    }
    return out;
  };

  const actions = /^(threats\/(scan|batch)|alerts|alerts\/[^/]+\/redeliver)$/;
  registerRoute(
    ({ url }) =>
      url.origin === self.location.origin &&
      url.pathname.startsWith(api) &&
      actions.test(url.pathname.slice(api.length)),
    sendOrQueue,
    'POST',
  );

  self.addEventListener('message', (event: ExtendableMessageEvent) => {
    const message = event.data as PageMessage | undefined;
    if (message?.type === 'replay') {
      token = message.token;
      event.waitUntil(replay().catch(() => undefined));
    } else if (message?.type === 'forget') {
      token = undefined;
      event.waitUntil(forget(queue));
    }
  });
}

/** Sign-out: the kept verdicts, the cached API answers and the queue go. */
async function forget(queue: Queue): Promise<void> {
  await forgetVerdicts();
  await caches.delete(API_CACHE);
  while (await queue.shiftRequest()) {
    // dropped
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
