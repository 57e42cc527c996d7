// The dashboard's service worker: the `pwa` module with the options its URL carries (src/pwa/register.ts sets them).
import type { PrecacheEntry } from 'workbox-precaching';
import { optionsFromUrl } from './pwa/pwa-options.js';
import { installServiceWorker } from './pwa/service-worker.js';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

installServiceWorker(self.__WB_MANIFEST, optionsFromUrl(new URL(self.location.href)));
