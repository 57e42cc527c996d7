import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';

/*
 * The packages a cluster loads on first use, in a page (chosen by package.json `imports`, `#cluster-modules`,
 * condition `browser`): a page cannot open a TCP connection to Redis, so `cluster` is refused with a
 * RuntimeUnsupportedError when the client first needs Redis (`start()`, the first lookup), never at import.
 */

function refused(): Promise<never> {
  return Promise.reject(
    new RuntimeUnsupportedError(
      'cluster',
      'cluster is not available in the browser: it needs Node.js (a TCP connection to Redis); ' +
        'in a page, leave cluster.enabled false (each page counts its own quotas)',
    ),
  );
}

/** Refused: the Redis client needs Node.js. */
export function importRedis(): Promise<unknown> {
  return refused();
}

/** Refused: rate-limiter-flexible is used only with Redis. */
export function importRateLimiter(): Promise<unknown> {
  return refused();
}
