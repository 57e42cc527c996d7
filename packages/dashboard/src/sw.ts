// The dashboard's service worker: @threatlib/pwa's module with the options its URL carries (main.tsx registers it
// with the options the server wrote into the page).
import { installServiceWorker, optionsFromUrl, type PrecacheEntry } from '@threatlib/pwa/worker';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

installServiceWorker(self.__WB_MANIFEST, optionsFromUrl(new URL(self.location.href)));
