/*
 * The packages a cluster loads on first use, in Node.js (chosen by package.json `imports`, `#cluster-modules`,
 * condition `default`): the Redis client and rate-limiter-flexible. `modules.browser.ts` is the page's side, where
 * neither is reachable: a page's bundler never sees them.
 */

/** `import('redis')`. */
export function importRedis(): Promise<unknown> {
  return import('redis');
}

/** `import('rate-limiter-flexible')`. */
export function importRateLimiter(): Promise<unknown> {
  return import('rate-limiter-flexible');
}
