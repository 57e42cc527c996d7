// The REST server: the `APIServer` class, what it serves (mount, mountTaxii) and its lifecycle (start, stop), and the
// building of its app from the pieces: the fastify instance (http/fastify-app.ts), the per-request hooks
// (http/request-hooks.ts), the error answers (http/error-replies.ts) and the route groups (routes/).

import rateLimit from '@fastify/rate-limit';
import type { ThreatClient } from '@threatlib/core';
import { securityHeaders } from '@threatlib/core/http-server';
import {
  configWithSecrets,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
} from '@threatlib/core/integration';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AuthFailureLimiter } from './auth/auth-failure-limiter.js';
import { Authenticator } from './auth/authenticator.js';
import { CampaignLog } from './campaigns/campaign-log.js';
import { type DashboardPwaOptions, dashboardAssets } from './dashboard/dashboard-assets.js';
import { type ClientHealth, clientHealth } from './health/client-health.js';
import { ProbeCache } from './health/probe-cache.js';
import { type ConnectionOptions, resolveConnectionOptions } from './http/connection-options.js';
import { ErrorReplies } from './http/error-replies.js';
import { createFastifyApp } from './http/fastify-app.js';
import { listenError } from './http/listen-error.js';
import type { ProblemError } from './http/problem.js';
import { rateLimitedProblem } from './http/rate-limited.js';
import { addRequestHooks } from './http/request-hooks.js';
import { serverLogger } from './http/server-logger.js';
import { answerUnrouted } from './http/unrouted.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { openApiDocument } from './openapi/document.js';
import { documentSecurity } from './openapi/document-security.js';
import {
  type APIServerOptions,
  type ResolvedAPIServerOptions,
  resolveAPIServerOptions,
} from './options/api-server-options.js';
import { checkAPIServerOptions } from './options/api-server-options-schema.js';
import { registerClientRoutes } from './routes/client-routes.js';
import { registerDashboardRoutes } from './routes/dashboard-routes.js';
import { registerDocsRoutes } from './routes/docs-routes.js';
import { registerProbeRoutes } from './routes/probe-routes.js';
import type { TaxiiOptions } from './taxii/taxii-options.js';
import { TaxiiServer } from './taxii/taxii-server.js';

export type { APIServerOptions };

interface Mounted {
  prefix: string;
  client: ThreatClient;
  authenticator: Authenticator;
  /** The campaigns the client detected, for `GET /campaigns`. */
  campaigns: CampaignLog;
}

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
  readonly #options: ResolvedAPIServerOptions;
  readonly #mounted: Mounted[] = [];
  readonly #taxii: Array<{ server: TaxiiServer; authenticator: Authenticator }> = [];
  readonly #connections: Required<ConnectionOptions>;
  readonly #authFailures: AuthFailureLimiter;
  readonly #metrics: ServerMetrics;
  readonly #startedAt = Date.now();
  #app: FastifyInstance | undefined;
  #address: string | undefined;
  readonly #healthProbe: ProbeCache<ClientHealth[]>;
  readonly #webhooks: { readonly plugin: FastifyPluginAsync } | undefined;

  /**
   * @throws {ConfigurationError} `Configuration invalid: <option>: ...` naming each option that is wrong and what it
   *   got: a wrong type, a value out of range, a duration in the wrong unit or given as a text (`windowMs: '15m'`, "did
   *   you mean 900000?"), or an unknown key (with the option it was probably meant to be).
   */
  constructor(options: APIServerOptions = {}) {
    checkAPIServerOptions(options);
    this.#options = resolveAPIServerOptions(options);
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
    const errors = new ErrorReplies(logger !== undefined);
    // Every answer, errors included, carries the hardening headers (nosniff, CSP, frame options, no-store...).
    const hardening = securityHeaders();
    const app = createFastifyApp({
      logger,
      hardening,
      bodyLimit: this.#options.bodyLimit,
      logRequests: this.#options.logRequests,
      jsonDepthLimit: this.#options.jsonDepthLimit,
      connections: this.#connections,
    });
    this.#app = app;
    addRequestHooks(app, { hardening, metrics: this.#metrics });

    await app.register(rateLimit, {
      global: true,
      max: this.#options.rateLimit.max,
      timeWindow: this.#options.rateLimit.windowMs,
      // The plugin's own key: the client's address, IPv4-mapped IPv6 as IPv4, IPv6 per /64 (one host rotating
      // through its own /64 is still one client). It is synchronous, where a custom one costs an await per request.
      errorResponseBuilder: rateLimitedProblem(this.#options.rateLimit.windowMs),
    });

    app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => errors.send(error, request, reply));
    answerUnrouted(app, (reply, request, problem) => errors.sendProblem(reply, request, problem));

    const document = openApiDocument({
      prefixes: this.#mounted.map((m) => m.prefix),
      batchLimit: this.#options.batchLimit,
      bodyLimit: this.#options.bodyLimit,
      protectProbes: this.#options.protectProbes,
      security: documentSecurity(
        this.#options.authentication,
        this.#mounted.map((m) => m.client),
      ),
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
              refuse: (error, request, reply) => errors.send(error, request, reply),
            }
          : undefined,
    });

    // The same counters as every route's limit: a batch is charged one request per indicator.
    const batchLimiter = app.createRateLimit();
    for (const { prefix, client, authenticator, campaigns } of this.#mounted) {
      const routes = {
        client,
        authenticator,
        campaigns,
        failures: this.#authFailures,
        refuse: (error: unknown, request: FastifyRequest, reply: FastifyReply) => errors.send(error, request, reply),
        batchLimit: this.#options.batchLimit,
        batchLimiter,
        alertPageBytes: this.#options.alertPageBytes,
      };
      await app.register(async (scope) => registerClientRoutes(scope, routes), { prefix });
    }
    // Encapsulated: the TAXII routes' media types, body parser and error messages stay in their own context.
    for (const { server, authenticator } of this.#taxii) {
      const guard = {
        authenticator,
        failures: this.#authFailures,
        report: (error: unknown, request: FastifyRequest) => errors.reportUnexpected(error, request),
        jsonDepthLimit: this.#options.jsonDepthLimit,
      };
      await app.register(async (scope) => server.routes(scope, guard), { prefix: server.prefix });
    }
    // Encapsulated: the webhooks' raw-body parser and problem answers stay in their own context.
    if (this.#webhooks) await app.register(this.#webhooks.plugin);
    await app.ready();
    return app;
  }

  /** Each mounted client's health: a cache round trip and a call to each integration, so reused for a while. */
  #probeClients(): Promise<ClientHealth[]> {
    return Promise.all(this.#mounted.map(({ prefix, client }) => clientHealth(prefix, client)));
  }
}
