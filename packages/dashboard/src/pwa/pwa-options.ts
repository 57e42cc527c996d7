// The documented `pwa` options, as the service-worker module (service-worker.ts) and the page (register.ts) read them.

/** The `pwa` options (`enabled` is the application's: it registers this worker or not). */
export interface PwaOptions {
  /** How the page and the API's reads are served (default `network-first`). */
  cacheStrategy?: 'cache-first' | 'network-first';
  /** Keep recent verdicts for offline use: true (500), a number of verdicts, or false (default true). */
  offlineData?: boolean | number;
  /** Queue scans and alert actions made offline and send them when the network is back (default true). */
  syncOnReconnect?: boolean;
  /** Where the REST API is, relative to the worker (default `../api/v1/`). */
  apiBase?: string;
}
