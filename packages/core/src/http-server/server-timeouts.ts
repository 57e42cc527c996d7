import type { ServerOptions } from 'node:http';

/**
 * How long a connection to an HTTP server may take over what, in ms: what keeps a client that sends slowly, or
 * nothing, from holding the server's connections. `0` turns one off (not recommended).
 */
export interface ServerTimeouts {
  /** The request line and headers (a new connection that sends nothing included); then 408. Node's `headersTimeout`. */
  headersTimeout: number;
  /** The whole request, body included; then 408. At least `headersTimeout` when both are on. */
  requestTimeout: number;
  /** An idle keep-alive connection between requests (at least 1). */
  keepAliveTimeout: number;
  /** A connection without any traffic either way (a client that stops reading its answer). */
  connectionTimeout: number;
}

/** The defaults: headers within 10 s, the request within 30 s, 5 s idle keep-alive, 120 s without traffic. */
export const SERVER_TIMEOUT_DEFAULTS: Readonly<ServerTimeouts> = Object.freeze({
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionTimeout: 120_000,
});

/**
 * The fastify server options (the same names as Node's `http.createServer` options, under `http`) that apply
 * `timeouts`. Node checks the header and request deadlines every `connectionsCheckingInterval` (30 s by its default,
 * which would let a 10 s deadline run to 40 s): here every second, or a quarter of the shorter deadline when that is
 * less.
 *
 * @example
 * ```ts
 * const app = Fastify({ ...serverTimeoutOptions({ ...SERVER_TIMEOUT_DEFAULTS, requestTimeout: 15_000 }) });
 * ```
 */
export function serverTimeoutOptions(timeouts: ServerTimeouts): {
  requestTimeout: number;
  connectionTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  const deadlines = [timeouts.headersTimeout, timeouts.requestTimeout].filter((ms) => ms > 0);
  const checkEvery = Math.max(10, Math.min(1_000, ...deadlines.map((ms) => Math.floor(ms / 4))));
  return {
    requestTimeout: timeouts.requestTimeout,
    connectionTimeout: timeouts.connectionTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    http: {
      headersTimeout: timeouts.headersTimeout,
      requestTimeout: timeouts.requestTimeout,
      keepAliveTimeout: timeouts.keepAliveTimeout,
      connectionsCheckingInterval: checkEvery,
    },
  };
}
