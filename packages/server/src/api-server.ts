import rateLimit from '@fastify/rate-limit';
import type { ThreatClient } from '@threatlib/core';
import { guardConnections, problemClientErrorHandler, securityHeaders } from '@threatlib/core/http-server';
import {
  configWithSecrets,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
} from '@threatlib/core/integration';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { type AuthFailureLimit, AuthFailureLimiter } from './auth/auth-failure-limiter.js';
import { authenticateRoutes } from './auth/authentication-hook.js';
import { Authenticator, type ServerAuthentication } from './auth/authenticator.js';
import { CampaignLog } from './campaigns/campaign-log.js';
import { type DashboardPwaOptions, dashboardAssets } from './dashboard/dashboard-assets.js';
import { type ClientHealth, clientHealth } from './health/client-health.js';
import { DEFAULT_HEALTH_CACHE_MS, ProbeCache } from './health/probe-cache.js';
import type { RequestLimiter } from './http/batch-rate-cost.js';
import { DEFAULT_PAGE_BYTES } from './http/budgeted-page.js';
import { clientKey } from './http/client-address.js';
import { ClientGone } from './http/client-gone.js';
import {
  type ConnectionOptions,
  fastifyConnectionOptions,
  resolveConnectionOptions,
} from './http/connection-options.js';
import { fastifyProblem, problemFor } from './http/error-problems.js';
import { deferContinue, refuseUnknownExpectations } from './http/expect-continue.js';
import { hostRequired } from './http/host-required.js';
import { DEFAULT_JSON_DEPTH_LIMIT, jsonBodyParser } from './http/json-body-parser.js';
import { refuseNonJsonPosts } from './http/json-only.js';
import { listenError } from './http/listen-error.js';
import { PROBLEM_TYPES, type Problem, ProblemError } from './http/problem.js';
import { rateLimitedProblem } from './http/rate-limited.js';
import { MAX_PARAM_LENGTH, routerRefusalHandler } from './http/router-refusals.js';
import { serverLogger } from './http/server-logger.js';
import { closeIfBodyUnread } from './http/unread-body.js';
import { answerUnrouted } from './http/unrouted.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { openApiDocument } from './openapi/document.js';
import { checkAPIServerOptions } from './options/api-server-options-schema.js';
import { registerAlertRoutes } from './routes/alert-routes.js';
import { registerCampaignRoutes } from './routes/campaign-routes.js';
import { registerCorrelateRoute } from './routes/correlate-route.js';
import { registerDashboardRoutes } from './routes/dashboard-routes.js';
import { registerDocsRoutes } from './routes/docs-routes.js';
import { registerFeedRoutes } from './routes/feed-routes.js';
import { registerProbeRoutes } from './routes/probe-routes.js';
import { registerQuotaRoutes } from './routes/quota-routes.js';
import { registerStixRoutes } from './routes/stix-routes.js';
import { registerThreatRoutes } from './routes/threat-routes.js';
import type { TaxiiOptions } from './taxii/taxii-options.js';
import { TaxiiServer } from './taxii/taxii-server.js';

/** Options of {@link APIServer}; the timeouts and the connection cap are those of {@link ConnectionOptions}. */
export interface APIServerOptions extends ConnectionOptions {
  /** Port to listen on, 0 to 65535 (default 8080; 0 picks a free one). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1: loopback only until you say otherwise). */
  host?: string;
  /** The server's own authentication; the mounted client's `security.authentication` is honoured too. */
  authentication?: ServerAuthentication;
  /**
   * Per-client-IP limit: at most `max` requests per `windowMs` (default 600 per minute). `windowMs` is a whole number
   * of milliseconds from 1000 to 86 400 000 (a day): a text such as `'15m'` or a number of seconds (`900`) is refused
   * with the milliseconds it stands for.
   */
  rateLimit?: { windowMs?: number; max?: number };
  /**
   * Failed authentications, counted per client address before authentication runs: an address that fails `max`
   * times (default 10) within `windowMs` (default 60 000) gets 429 for every request, valid credentials included, for
   * `blockMs` (default 300 000). Other addresses are not affected.
   */
  authFailureLimit?: AuthFailureLimit;
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Most indicators in one `POST /threats/batch` (default 1000). */
  batchLimit?: number;
  /**
   * Log each request and its answer (fastify's `incoming request` / `request completed` lines, category `server`).
   * Off by default: a line per request is costly and rarely wanted; errors are logged either way.
   */
  logRequests?: boolean;
  /**
   * Deepest nesting of arrays and objects in a request body (default 32): a deeper body gets 400 before it is
   * parsed. (Alert `metadata` is also capped at 64 KiB as JSON, by core.)
   */
  jsonDepthLimit?: number;
  /**
   * Most bytes in one page of `GET /alerts` (default 1 MiB): a page ends early, with its `nextCursor`, when the next
   * alert would pass it (a page always holds at least one alert).
   */
  alertPageBytes?: number;
  /** How long `GET /health` reuses a probe of the clients, in ms (default 5000; 0 probes on every request). */
  healthCacheMs?: number;
  /**
   * Whether `/health` and `/metrics` need the API's credentials (the first mounted client's, which include the
   * server's bearer tokens). Default false: open, for probes and scrapers on loopback; turn it on when the server
   * listens beyond loopback and the probes can send a token.
   */
  protectProbes?: boolean;
  /**
   * Serve the dashboard at `/app` (default true): the analyst's page (scan, alerts, feeds, campaigns) built into the
   * package, talking to this server's API with the same bearer token. `/` links it when it is served. `{pwa}` sets
   * how its service worker works (the documented `pwa` options; see {@link DashboardPwaOptions}); without it, the page
   * carries the `pwa` configuration of the client mounted at `/api/v1` (or of the first one mounted).
   */
  dashboard?: boolean | { pwa?: DashboardPwaOptions };
  /**
   * Incoming webhooks served on this server's port: a `WebhookManager` of `@threatlib/webhooks` (anything with a
   * fastify `plugin`). Its routes (`POST <server.path>`, default `/webhooks`, and `/webhooks/<eventName>`) are outside
   * the API's authentication, as webhooks carry their own signatures, and bring their own body parser and limits; the
   * per-address rate limit and the connection timeouts apply to them as to every route.
   *
   * @example
   * ```ts
   * new APIServer({ port: 8080, authentication, webhooks: client.integration('webhooks')?.manager });
   * ```
   */
  webhooks?: { readonly plugin: FastifyPluginAsync } | undefined;
}

interface Mounted {
  prefix: string;
  client: ThreatClient;
  authenticator: Authenticator;
  /** The campaigns the client detected, for `GET /campaigns`. */
  campaigns: CampaignLog;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_BATCH_LIMIT = 1000;

/**
 * The threatlib REST service: fastify with per-IP rate limiting, authentication, RFC 9457 problem responses, an
 * OpenAPI 3.1 document at `/openapi.json` (docs at `/docs`), `/health` and Prometheus `/metrics`.
 *
 * @example
 * ```ts
 * const server = new APIServer({ port: 8080, authentication: { type: 'bearer', tokens: [process.env.API_TOKEN!] } });
 * server.mount('/api/v1', client);
 * await server.start();
 * ```
 */
export class APIServer {
  readonly #options: Required<
    Omit<APIServerOptions, 'authentication' | 'rateLimit' | 'authFailureLimit' | 'webhooks' | keyof ConnectionOptions>
  > & {
    authentication: ServerAuthentication | undefined;
    rateLimit: { windowMs: number; max: number };
  };
  readonly #mounted: Mounted[] = [];
  readonly #taxii: Array<{ server: TaxiiServer; authenticator: Authenticator }> = [];
  readonly #connections: Required<ConnectionOptions>;
  readonly #authFailures: AuthFailureLimiter;
  readonly #metrics: ServerMetrics;
  readonly #startedAt = Date.now();
  #app: FastifyInstance | undefined;
  #logsToClient = false;
  #address: string | undefined;
  readonly #healthProbe: ProbeCache<ClientHealth[]>;
  #batchLimiter: RequestLimiter | undefined;
  readonly #webhooks: { readonly plugin: FastifyPluginAsync } | undefined;

  /**
   * @throws {ConfigurationError} `Configuration invalid: <option>: ...` naming each option that is wrong and what it
   *   got: a wrong type, a value out of range, a duration in the wrong unit or given as a text (`windowMs: '15m'`, "did
   *   you mean 900000?"), or an unknown key (with the option it was probably meant to be).
   */
  constructor(options: APIServerOptions = {}) {
    checkAPIServerOptions(options);
    this.#options = {
      port: options.port ?? 8080,
      host: options.host ?? '127.0.0.1',
      authentication: options.authentication,
      rateLimit: { windowMs: options.rateLimit?.windowMs ?? 60_000, max: options.rateLimit?.max ?? 600 },
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      batchLimit: options.batchLimit ?? DEFAULT_BATCH_LIMIT,
      logRequests: options.logRequests ?? false,
      jsonDepthLimit: options.jsonDepthLimit ?? DEFAULT_JSON_DEPTH_LIMIT,
      alertPageBytes: options.alertPageBytes ?? DEFAULT_PAGE_BYTES,
      healthCacheMs: options.healthCacheMs ?? DEFAULT_HEALTH_CACHE_MS,
      protectProbes: options.protectProbes ?? false,
      dashboard: options.dashboard ?? true,
    };
    this.#healthProbe = new ProbeCache(() => this.#probeClients(), { ttlMs: this.#options.healthCacheMs });
    this.#connections = resolveConnectionOptions(options);
    this.#authFailures = new AuthFailureLimiter(options.authFailureLimit);
    this.#metrics = new ServerMetrics(() => this.#mounted);
    this.#webhooks = options.webhooks;
  }

  /**
   * The dashboard's `pwa` options: `dashboard.pwa` when given, else the `pwa` configuration of the client the page
   * talks to (mounted at `/api/v1`, the page's `../api/v1/`; the first mounted one otherwise).
   */
  #dashboardPwa(): DashboardPwaOptions | undefined {
    if (typeof this.#options.dashboard === 'object' && this.#options.dashboard.pwa) return this.#options.dashboard.pwa;
    const served = this.#mounted.find((m) => m.prefix === '/api/v1') ?? this.#mounted[0];
    return served?.client.config.pwa;
  }

  /**
   * Serves `client` under `prefix` (e.g. `/api/v1`).
   *
   * @throws {Error} when the prefix is taken or malformed, or when neither the server nor the client configures
   *   authentication (choose `{type: 'none'}` explicitly for an open server).
   */
  mount(prefix: string, client: ThreatClient): this {
    if (this.#app) throw new Error('mount() must be called before start()');
    const normalised = prefix === '/' ? '' : prefix.replace(/\/+$/, '');
    if (normalised !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(normalised)) {
      throw new Error(`mount prefix ${JSON.stringify(prefix)} is not a path such as "/api/v1"`);
    }
    if (this.#mounted.some((m) => m.prefix === normalised))
      throw new Error(`a client is already mounted at "${prefix}"`);
    // client.config shows its secrets redacted: the authenticator needs the JWT secret and the users' hashes.
    const { security } = configWithSecrets(client);
    const authenticator = new Authenticator(this.#options.authentication, security.authentication, {
      enforceHttps: security.enforceHttps,
    });
    this.#mounted.push({ prefix: normalised, client, authenticator, campaigns: new CampaignLog(client) });
    return this;
  }

  /**
   * Serves `client` over TAXII 2.1 under `prefix` (`/taxii2`: discovery at `/taxii2/`, the API root at
   * `/taxii2/threatlib/`), with the same authentication as {@link mount} (the server's, and the client's
   * `security.authentication`), rate limits and hardening. Its collections: the indicators of the threats the client
   * concludes (read-only) and an inbox whose STIX indicators the client lists (see the README, "TAXII 2.1").
   *
   * @throws {Error} as {@link mount} does; {@link RangeError} naming an option that is not valid.
   */
  mountTaxii(prefix: string, client: ThreatClient, options: TaxiiOptions = {}): this {
    if (this.#app) throw new Error('mountTaxii() must be called before start()');
    const normalised = prefix.replace(/\/+$/, '');
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(normalised)) {
      throw new Error(`TAXII prefix ${JSON.stringify(prefix)} is not a path such as "/taxii2"`);
    }
    if (this.#mounted.some((m) => m.prefix === normalised) || this.#taxii.some((t) => t.server.prefix === normalised)) {
      throw new Error(`something is already mounted at "${prefix}"`);
    }
    const { security } = configWithSecrets(client);
    const authenticator = new Authenticator(this.#options.authentication, security.authentication, {
      enforceHttps: security.enforceHttps,
    });
    this.#taxii.push({ server: new TaxiiServer(client, normalised, options), authenticator });
    return this;
  }

  /** Where the server listens, once started (`http://127.0.0.1:8080`). */
  get address(): string | undefined {
    return this.#address;
  }

  /**
   * What `JSON.stringify` writes of the server: where it listens, the mounted prefixes and the kind of authentication;
   * never a token, a JWT secret or a password hash (those stay in the server and its clients).
   */
  toJSON(): Record<string, unknown> {
    return {
      address: this.#address,
      host: this.#options.host,
      port: this.#options.port,
      mounted: this.#mounted.map((m) => m.prefix || '/'),
      authentication: this.#options.authentication?.type,
    };
  }

  /** What `util.inspect` and `console.log` show of the server: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('APIServer', this.toJSON(), depth, options, inspect);
  }

  /** Starts every mounted client and listens. Resolves with the address. */
  async start(): Promise<string> {
    if (this.#mounted.length === 0 && this.#taxii.length === 0) throw new Error('mount() a client before start()');
    // What authentication can only learn over the network (an OAuth 2.0 issuer's metadata), before anything starts:
    // a configuration that cannot check a token fails here, not on every request.
    for (const { authenticator } of [...this.#mounted, ...this.#taxii]) await authenticator.prepare();
    const app = await this.#build();
    const started: ThreatClient[] = [];
    const taxiiStarted: TaxiiServer[] = [];
    try {
      for (const { client } of this.#mounted) {
        await client.start();
        started.push(client);
      }
      for (const { server } of this.#taxii) {
        await server.start();
        taxiiStarted.push(server);
        if (!started.includes(server.client)) started.push(server.client);
      }
      this.#address = await app.listen({ port: this.#options.port, host: this.#options.host });
    } catch (error) {
      // Nothing is left running: the app's resources and the clients started so far are released.
      this.#app = undefined;
      await app.close();
      for (const server of taxiiStarted) server.stop();
      for (const client of started.reverse()) await client.stop().catch(() => {});
      throw listenError(error, this.#options.host, this.#options.port);
    }
    return this.#address;
  }

  /** Stops listening (in-flight requests finish) and stops every mounted client. */
  async stop(): Promise<void> {
    const app = this.#app;
    this.#app = undefined;
    this.#address = undefined;
    await app?.close();
    for (const { server } of this.#taxii) server.stop();
    const clients = new Set([...this.#mounted, ...this.#taxii.map((t) => t.server)].map((m) => m.client));
    for (const client of clients) await client.stop();
  }

  async #build(): Promise<FastifyInstance> {
    const logger = serverLogger(this.#mounted[0]?.client ?? this.#taxii[0]?.server.client);
    this.#logsToClient = logger !== undefined;
    // Every answer, errors included, carries the hardening headers (nosniff, CSP, frame options, no-store...).
    const hardening = securityHeaders();
    const app = Fastify({
      bodyLimit: this.#options.bodyLimit,
      // The server logs through the (first) mounted client's pino logger, with its format, filters, redaction and
      // transports, under the category "server".
      ...(logger ? { loggerInstance: logger } : { logger: false }),
      logController: new LogController({ disableRequestLogging: !this.#options.logRequests }),
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
      ...fastifyConnectionOptions(this.#connections),
      // What node's HTTP parser refuses (and requests that time out) is answered with a problem document too.
      clientErrorHandler: problemClientErrorHandler((entry) => app.log.debug(entry, 'client error')),
    });
    this.#app = app;
    // Counted under the rate limiter's key, so the connection cap and the request limits see the same client.
    guardConnections(app.server, {
      maxPerAddress: this.#connections.maxConnectionsPerAddress,
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
      jsonBodyParser({ maxDepth: this.#options.jsonDepthLimit }),
    );

    // The hardening headers, set first and in one call, before any hook can answer.
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(hardening);
      done();
    });

    // Responses are written in the event loop's check phase, together, instead of one by one as each handler
    // finishes: under load the requests read in one poll phase are answered in one burst, which costs the kernel
    // (and the peers it wakes) far less per response. An idle server answers in the same loop turn as before.
    // Measured by `pnpm bench:server` (see bench/README.md).
    app.addHook('onSend', (_request, _reply, payload, done) => {
      setImmediate(done, null, payload);
    });
    // Hooks on every request are callback-style: an async hook costs a promise and a microtask per request.
    app.addHook('onRequest', (request, _reply, done) => {
      (request as { startedAt?: bigint }).startedAt = process.hrtime.bigint();
      done(hostRequired(request));
    });
    app.addHook('onResponse', (request, reply, done) => {
      const started = (request as { startedAt?: bigint }).startedAt ?? process.hrtime.bigint();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.#metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, seconds);
      done();
    });

    await app.register(rateLimit, {
      global: true,
      max: this.#options.rateLimit.max,
      timeWindow: this.#options.rateLimit.windowMs,
      // The plugin's own key: the client's address, IPv4-mapped IPv6 as IPv4, IPv6 per /64 (one host rotating
      // through its own /64 is still one client). It is synchronous, where a custom one costs an await per request.
      errorResponseBuilder: rateLimitedProblem(this.#options.rateLimit.windowMs),
    });

    app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => this.#sendError(error, request, reply));
    answerUnrouted(app, (reply, request, problem) => this.#sendProblem(reply, request, problem));

    const document = openApiDocument({
      prefixes: this.#mounted.map((m) => m.prefix),
      batchLimit: this.#options.batchLimit,
      bodyLimit: this.#options.bodyLimit,
      protectProbes: this.#options.protectProbes,
      security: [
        ...(this.#options.authentication?.type === 'bearer' ||
        this.#mounted.some((m) => ['jwt', 'oauth2'].includes(m.client.config.security.authentication?.type ?? ''))
          ? (['bearer'] as const)
          : []),
        ...(this.#mounted.some((m) => m.client.config.security.authentication?.type === 'basic')
          ? (['basic'] as const)
          : []),
      ],
    });
    registerDocsRoutes(app, { document, prefixes: this.#mounted.map((m) => m.prefix) });
    const dashboard = this.#options.dashboard ? dashboardAssets(undefined, this.#dashboardPwa()) : undefined;
    if (this.#options.dashboard && !dashboard)
      app.log.warn('the dashboard is missing (build @threatlib/server with pnpm run build): /app is not served');
    registerDashboardRoutes(app, dashboard);
    const [first] = this.#mounted;
    registerProbeRoutes(app, {
      clients: this.#mounted.map((m) => m.client),
      healthProbe: this.#healthProbe,
      startedAt: this.#startedAt,
      metrics: this.#metrics,
      guard:
        this.#options.protectProbes && first
          ? {
              authenticator: first.authenticator,
              failures: this.#authFailures,
              refuse: (error, request, reply) => this.#sendError(error, request, reply),
            }
          : undefined,
    });

    // The same counters as every route's limit: a batch is charged one request per indicator.
    this.#batchLimiter = app.createRateLimit();
    for (const mounted of this.#mounted) {
      await app.register(async (scope) => this.#routes(scope, mounted), { prefix: mounted.prefix });
    }
    // Encapsulated: the TAXII routes' media types, body parser and error messages stay in their own context.
    for (const { server, authenticator } of this.#taxii) {
      const guard = {
        authenticator,
        failures: this.#authFailures,
        report: (error: unknown, request: FastifyRequest) => this.#reportUnexpected(error, request),
        jsonDepthLimit: this.#options.jsonDepthLimit,
      };
      await app.register(async (scope) => server.routes(scope, guard), { prefix: server.prefix });
    }
    // Encapsulated: the webhooks' raw-body parser and problem answers stay in their own context.
    if (this.#webhooks) await app.register(this.#webhooks.plugin);
    await app.ready();
    return app;
  }

  async #routes(app: FastifyInstance, { client, authenticator, campaigns }: Mounted): Promise<void> {
    // Every route below, after its per-address rate limit; failed authentications count per address.
    authenticateRoutes(app, {
      authenticator,
      failures: this.#authFailures,
      refuse: (error, request, reply) => this.#sendError(error, request, reply),
    });

    refuseNonJsonPosts(app);
    registerThreatRoutes(app, { client, batchLimit: this.#options.batchLimit, batchLimiter: this.#batchLimiter });
    registerCorrelateRoute(app, client);
    registerFeedRoutes(app, client);
    registerQuotaRoutes(app, client);
    registerAlertRoutes(app, { client, alertPageBytes: this.#options.alertPageBytes });
    registerCampaignRoutes(app, client, campaigns);
    registerStixRoutes(app, this.#options.batchLimit);
  }

  /** Each mounted client's health: a cache round trip and a call to each integration, so reused for a while. */
  #probeClients(): Promise<ClientHealth[]> {
    return Promise.all(this.#mounted.map(({ prefix, client }) => clientHealth(prefix, client)));
  }

  #sendError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    if (error instanceof ProblemError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return this.#sendProblem(reply, request, error.problem);
    }
    // Nobody is left to answer: the lookup was stopped on purpose, which is no error of ours.
    if (error instanceof ClientGone) {
      request.log.debug({ method: request.method, url: request.url.split('?')[0] }, error.message);
      return reply.code(499).send();
    }
    const known = problemFor(error) ?? fastifyProblem(error as FastifyError);
    if (known) return this.#sendProblem(reply, request, known);
    // Anything else is our bug: say so without leaking internals, and keep the details for the operator.
    this.#reportUnexpected(error, request);
    return this.#sendProblem(reply, request, {
      type: PROBLEM_TYPES.internal,
      title: 'Internal error',
      status: 500,
      detail: 'the server failed to handle this request; the operator can find the cause in its log',
    });
  }

  /** Logs a failure of the server itself for the operator (the client's logger, else a process warning). */
  #reportUnexpected(error: unknown, request: FastifyRequest): void {
    if (this.#logsToClient) {
      request.log.error({ err: error, method: request.method, url: request.url.split('?')[0] }, 'unexpected error');
    } else {
      process.emitWarning(
        `threatlib server: unexpected error on ${request.method} ${request.url.split('?')[0]}: ${(error as Error)?.stack ?? error}`,
      );
    }
  }

  #sendProblem(reply: FastifyReply, request: FastifyRequest, problem: Problem) {
    closeIfBodyUnread(request, reply);
    return reply
      .code(problem.status)
      .type('application/problem+json')
      .send({ ...problem, instance: request.url.split('?')[0] });
  }
}
