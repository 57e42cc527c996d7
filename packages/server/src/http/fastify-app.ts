// The fastify instance the REST server runs on: its logger, limits, router and timeouts, and what is refused before
// any hook runs (a path the router cannot take, a request node's parser refuses, too many connections from one
// address, an expectation other than 100-continue, a JSON body too deep).

import { guardConnections, problemClientErrorHandler } from '@threatlib/core/http-server';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { clientKey } from './client-address.js';
import { type ConnectionOptions, fastifyConnectionOptions } from './connection-options.js';
import { deferContinue, refuseUnknownExpectations } from './expect-continue.js';
import { jsonBodyParser } from './json-body-parser.js';
import { MAX_PARAM_LENGTH, routerRefusalHandler } from './router-refusals.js';

/** What the server's fastify instance is made with. */
interface FastifyAppSettings {
  /** The (first) mounted client's logger, as fastify's; none, and fastify logs nothing. */
  logger: FastifyBaseLogger | undefined;
  /** The headers every answer carries, refusals included. */
  hardening: Readonly<Record<string, string>>;
  bodyLimit: number;
  logRequests: boolean;
  jsonDepthLimit: number;
  connections: Required<ConnectionOptions>;
}

/** A fastify instance with the server's settings and the refusals that come before any hook. */
export function createFastifyApp(settings: FastifyAppSettings): FastifyInstance {
  const { logger, hardening, connections } = settings;
  const app = Fastify({
    bodyLimit: settings.bodyLimit,
    // The server logs through the (first) mounted client's pino logger, with its format, filters, redaction and
    // transports, under the category "server".
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: !settings.logRequests }),
    // A client behind a proxy is the proxy: rate limits per socket address unless trustProxy is set up.
    trustProxy: false,
    return503OnClosing: true,
    // An alert id may be 200 characters (GET /alerts/{id}): the router's default refuses a parameter past 100 with
    // a bare 414; above 200 the route's own check answers, a 400 problem naming the limit.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // What the router refuses before any hook runs (a path it cannot decode, a parameter past maxParamLength) is a
    // problem document with the hardening headers too, and never repeats the path.
    frameworkErrors: routerRefusalHandler(hardening),
    // Timeouts on headers, whole requests, idle keep-alive and silent connections (none of them is on in fastify).
    ...fastifyConnectionOptions(connections),
    // What node's HTTP parser refuses (and requests that time out) is answered with a problem document too.
    clientErrorHandler: problemClientErrorHandler((entry) => app.log.debug(entry, 'client error')),
  });
  // Counted under the rate limiter's key, so the connection cap and the request limits see the same client.
  guardConnections(app.server, {
    maxPerAddress: connections.maxConnectionsPerAddress,
    key: clientKey,
    onCapReached: ({ address, max }) =>
      app.log.warn({ address, max }, 'connections per address capped: closing new ones from this address'),
  });
  // A body is invited (100 Continue) only once its request is authenticated; any other expectation gets 417.
  deferContinue(app.server);
  refuseUnknownExpectations(app.server, hardening);

  // Depth and duplicate keys are refused before the parse, a "__proto__" key by it; see json-body-parser.ts.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    jsonBodyParser({ maxDepth: settings.jsonDepthLimit }),
  );
  return app;
}
