// The documented `pwa` options, as the service-worker module (service-worker.ts) and the page (register.ts) read them.

/**
 * The `pwa` options: core's `client.config.pwa` (`PwaConfig`) is one, as it is. Each is optional here, with the
 * defaults core documents.
 */
export interface PwaOptions {
  /** The page registers the worker (default true); false registers none and removes one registered before. */
  enabled?: boolean;
  /** How the page and the API's reads are served (default `network-first`). */
  cacheStrategy?: 'cache-first' | 'network-first';
  /** Keep recent verdicts for offline use: true (500), a number of verdicts, or false (default true). */
  offlineData?: boolean | number;
  /** Queue scans and alert actions made offline and send them when the network is back (default true). */
  syncOnReconnect?: boolean;
  /** Where the REST API is, relative to the worker (default `../api/v1/`). */
  apiBase?: string;
}

/** The options a worker's URL carries (`sw.js?cacheStrategy=cache-first&offlineData=200&syncOnReconnect=false`). */
export function optionsFromUrl(url: URL): PwaOptions {
  const params = url.searchParams;
  const options: PwaOptions = {};
  const strategy = params.get('cacheStrategy');
  if (strategy === 'cache-first' || strategy === 'network-first') options.cacheStrategy = strategy;
  const offline = params.get('offlineData');
  if (offline === 'false') options.offlineData = false;
  else if (offline !== null && /^\d{1,6}$/.test(offline)) options.offlineData = Number(offline);
  if (params.get('syncOnReconnect') === 'false') options.syncOnReconnect = false;
  return options;
}

/** The query that carries `options` on the worker's URL (`?cacheStrategy=cache-first`), read by {@link optionsFromUrl}. */
export function optionsQuery(options: PwaOptions): string {
  const params = new URLSearchParams();
  if (options.cacheStrategy) params.set('cacheStrategy', options.cacheStrategy);
  if (options.offlineData !== undefined) params.set('offlineData', String(options.offlineData));
  if (options.syncOnReconnect === false) params.set('syncOnReconnect', 'false');
  const query = params.toString();
  return query ? `?${query}` : '';
}
