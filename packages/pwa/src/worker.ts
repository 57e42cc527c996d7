// @threatlib/pwa/worker, the service worker's side: what an application's own worker (its `sw.ts`) imports.
export type { PrecacheEntry } from 'workbox-precaching';
export { type PageMessage, QUEUED_HEADER, type WorkerMessage } from './messages.js';
export { optionsFromUrl, type PwaOptions } from './pwa-options.js';
export { installServiceWorker } from './service-worker.js';
