import { STATUS_CODES } from 'node:http';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { type Logger, silentLogger } from '@threatlib/core';
import {
  guardConnections,
  type Problem,
  ProblemError,
  problemClientErrorHandler,
  SERVER_TIMEOUT_DEFAULTS,
  securityHeaders,
  serverTimeoutOptions,
} from '@threatlib/core/http-server';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { WebhookError } from '../errors/webhook-error.js';
import type { ResolvedIncomingOptions } from './incoming-options.js';
import type { FailureLimiter, IncomingWebhooks } from './incoming-webhooks.js';
import { WEBHOOK_PROBLEM_TYPES } from './problem.js';

/**
 * The manager's own fastify server, serving the incoming routes on `server.host`:`server.port`. Every way in is
 * attack surface, so before any route runs: the headers must arrive within `headersTimeoutMs` (10 s) and the whole
 * request within `requestTimeoutMs` (a body sent slowly is cut with a 408), idle and silent connections are closed,
 * one address (IPv6: one /64) holds at most `maxConnectionsPerAddress` connections and sends at most `rateLimit`
 * requests a window, and an address whose signatures failed `failedSignatureLimit` times gets 429 until the window
 * ends. All three count a sender under `@fastify/rate-limit`'s key, so they see the same one. Anything but the webhook
 * routes gets a 404 or 405 problem.
 */
export class WebhookServer {
  readonly #options: ResolvedIncomingOptions['server'];
  readonly #incoming: IncomingWebhooks;
  readonly #logger: Logger;
  #app: FastifyInstance | undefined;
  #address: string | undefined;

  constructor(options: ResolvedIncomingOptions['server'], incoming: IncomingWebhooks, logger: Logger = silentLogger) {
    this.#options = options;
    this.#incoming = incoming;
    this.#logger = logger;
  }

  get address(): string | undefined {
    return this.#address;
  }

  /** @throws {WebhookError} when the server cannot listen (the port is taken, the host is not local). */
  async start(): Promise<void> {
    if (this.#app) return;
    const options = this.#options;
    const hardening = securityHeaders();
    const app = Fastify({
      logger: false,
      trustProxy: false,
      return503OnClosing: true,
      // Deadlines on headers, whole requests, idle keep-alive and silent connections, checked every second at most.
      ...serverTimeoutOptions({
        headersTimeout:
          options.headersTimeoutMs ?? Math.min(SERVER_TIMEOUT_DEFAULTS.headersTimeout, options.requestTimeoutMs),
        requestTimeout: options.requestTimeoutMs,
        keepAliveTimeout: options.keepAliveTimeoutMs,
        connectionTimeout: options.connectionTimeoutMs,
      }),
      clientErrorHandler: problemClientErrorHandler(),
      // What the router refuses before any hook runs (a path it cannot decode, a segment past its 100-character
      // limit): a problem with the hardening headers, where fastify's own answer lacks them and repeats the path.
      frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
        const problem = routerRefusal(error.code);
        reply.headers(hardening).code(problem.status).type('application/problem+json').send(problem);
      },
    });
    guardConnections(app.server, {
      maxPerAddress: options.maxConnectionsPerAddress,
      key: normalizeIP,
      onCapReached: ({ address, max }) =>
        this.#logger.warn(
          { category: 'integration', address, max },
          `webhook server: ${address} holds ${max} connections (server.maxConnectionsPerAddress); closing its new ones`,
        ),
    });
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(hardening);
      done();
    });
    const failures = await this.#limit(app);
    // Outside the routes (which answer their own errors): the rate limiter's refusal, or a body a 404 could not read.
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
      const problem: Problem =
        error instanceof ProblemError
          ? error.problem
          : status < 500
            ? { type: WEBHOOK_PROBLEM_TYPES.malformedRequest, title: STATUS_CODES[status] ?? 'Bad request', status }
            : { type: WEBHOOK_PROBLEM_TYPES.internal, title: 'Internal error', status: 500 };
      if (!request.raw.complete) reply.header('connection', 'close');
      return reply
        .code(problem.status)
        .type('application/problem+json')
        .send({ ...problem, instance: request.url.split('?')[0] });
    });
    app.setNotFoundHandler((request, reply) => notFound(app, request, reply));
    await app.register((scope) => this.#incoming.routes(scope, failures ? { failures } : {}));
    try {
      this.#address = await app.listen({ port: this.#options.port ?? 0, host: this.#options.host });
    } catch (error) {
      await app.close();
      throw new WebhookError(
        'start',
        `the webhook server could not listen on ${this.#options.host}:${this.#options.port}: ${(error as Error).message}`,
        { cause: error, isRetryable: true },
      );
    }
    this.#app = app;
  }

  /**
   * Registers the per-address request limit (every request, 404s included) and makes the failed-signature limiter: a
   * store of its own, which only refused signatures count toward.
   */
  async #limit(app: FastifyInstance): Promise<FailureLimiter | undefined> {
    const { rateLimit: requests, failedSignatureLimit: failed } = this.#options;
    if (requests === false && failed === false) return undefined;
    await app.register(rateLimit, {
      // Counted in a hook of the whole server rather than per route, so a 404 counts too, and before any body is read.
      global: false,
      ...(requests === false ? {} : { max: requests.max, timeWindow: requests.windowMs }),
      errorResponseBuilder: (_request, context) =>
        new ProblemError({
          type: WEBHOOK_PROBLEM_TYPES.rateLimited,
          title: 'Too many requests',
          status: 429,
          detail: `at most ${context.max} requests per ${requests === false ? '' : `${requests.windowMs / 1000} s `}from one address; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s`,
        }),
    });
    if (requests !== false) app.addHook('onRequest', app.rateLimit());
    return failed === false ? undefined : app.createRateLimit({ max: failed.max, timeWindow: failed.windowMs });
  }

  /** Stops listening; requests under way finish. */
  async stop(): Promise<void> {
    const app = this.#app;
    this.#app = undefined;
    this.#address = undefined;
    await app?.close();
  }
}

/** The problem for a request fastify's router refused; it never quotes the path. */
function routerRefusal(code: string): Problem {
  return code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? {
        type: WEBHOOK_PROBLEM_TYPES.malformedRequest,
        title: 'URI too long',
        status: 414,
        detail: 'a segment of the path is longer than the server reads',
      }
    : {
        type: WEBHOOK_PROBLEM_TYPES.malformedRequest,
        title: 'Malformed request',
        status: 400,
        detail: 'the path has broken percent-encoding, or could not be routed',
      };
}

function notFound(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const url = request.url.split('?')[0] ?? '/';
  const parent = url.replace(/\/[^/]+$/, '');
  const routed = app.hasRoute({ method: 'POST', url }) || app.hasRoute({ method: 'POST', url: `${parent}/:event` });
  if (!request.raw.complete) reply.header('connection', 'close');
  if (routed) reply.header('allow', 'POST');
  const problem = routed
    ? {
        type: WEBHOOK_PROBLEM_TYPES.methodNotAllowed,
        title: 'Method not allowed',
        status: 405,
        detail: `${url.slice(0, 200)} answers POST only`,
      }
    : {
        type: WEBHOOK_PROBLEM_TYPES.notFound,
        title: 'Not found',
        status: 404,
        detail: `no route ${request.method} ${url.slice(0, 200)}`,
      };
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send({ ...problem, instance: url });
}
