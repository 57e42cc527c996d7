import type { ServerOptions } from 'node:http';
import { ConfigurationError } from '@threatlib/core';
import { SERVER_TIMEOUT_DEFAULTS, serverTimeoutOptions } from '@threatlib/core/http-server';

/**
 * How long a connection may take over what, and how many one client address may hold: the options of
 * {@link APIServerOptions} that keep a client without a token from holding the server's connections open.
 */
export interface ConnectionOptions {
  /**
   * Milliseconds the request line and headers may take to arrive (a new connection that sends nothing included);
   * then 408 and the connection is closed. Node's `headersTimeout`. Default 10 000; `0` turns it off (not
   * recommended). Each timeout here is 100 ms or more (less is refused as seconds given for milliseconds).
   */
  headersTimeout?: number;
  /**
   * Milliseconds the whole request, body included, may take to arrive; then 408 and the connection is closed.
   * Default 30 000; `0` turns it off (not recommended). At least `headersTimeout` when both are on.
   */
  requestTimeout?: number;
  /** Milliseconds an idle keep-alive connection is kept between requests. Default 5 000. */
  keepAliveTimeout?: number;
  /**
   * Milliseconds a connection may go without any traffic either way (a client that stops reading its answer, a
   * handler that runs this long) before it is closed. Default 120 000; `0` turns it off.
   */
  connectionTimeout?: number;
  /**
   * Connections one client address (IPv6: one /64) may hold open at once; more are closed as they arrive. Default 64;
   * `0` lifts the cap. Behind a proxy every client is the proxy's address: raise it, or lift it and cap at the proxy.
   */
  maxConnectionsPerAddress?: number;
}

/** The documented defaults of {@link ConnectionOptions}. */
const CONNECTION_DEFAULTS: Readonly<Required<ConnectionOptions>> = Object.freeze({
  ...SERVER_TIMEOUT_DEFAULTS,
  maxConnectionsPerAddress: 64,
});

/**
 * The options with their defaults (`APIServer` has checked them: see `checkAPIServerOptions`), and the headers'
 * timeout within the request's when only one of them was given.
 *
 * @throws {ConfigurationError} when the default of one and the value given for the other disagree.
 */
export function resolveConnectionOptions(options: ConnectionOptions): Required<ConnectionOptions> {
  const resolved = { ...CONNECTION_DEFAULTS };
  for (const name of Object.keys(CONNECTION_DEFAULTS) as Array<keyof ConnectionOptions>) {
    const value = options[name];
    if (value !== undefined) resolved[name] = value;
  }
  const { headersTimeout, requestTimeout } = resolved;
  if (headersTimeout > 0 && requestTimeout > 0 && headersTimeout > requestTimeout) {
    throw new ConfigurationError([
      {
        path: options.headersTimeout === undefined ? 'requestTimeout' : 'headersTimeout',
        message: `headersTimeout (${headersTimeout}) must not exceed requestTimeout (${requestTimeout}): the headers are part of the request`,
      },
    ]);
  }
  return resolved;
}

/** The fastify server options that apply `options` (core's `serverTimeoutOptions`), and a Host-less request let in. */
export function fastifyConnectionOptions(options: Required<ConnectionOptions>): {
  requestTimeout: number;
  connectionTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  const timeouts = serverTimeoutOptions(options);
  // An HTTP/1.1 request without Host is refused by the server itself, with a problem document.
  return { ...timeouts, http: { ...timeouts.http, requireHostHeader: false } };
}
