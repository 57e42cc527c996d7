// @threatlib/pwa, the page's side: register the application's worker with the `pwa` options, talk to it, read the
// verdicts it kept. The worker's side is `@threatlib/pwa/worker`.
export { type PageMessage, QUEUED_HEADER, type WorkerMessage } from './messages.js';
export { optionsFromUrl, optionsQuery, type PwaOptions } from './pwa-options.js';
export { type RegisterOptions, registerServiceWorker, tellWorker, unregisterServiceWorkers } from './register.js';
export { type ScanResult, type StoredVerdict, storedVerdicts } from './verdict-store.js';
