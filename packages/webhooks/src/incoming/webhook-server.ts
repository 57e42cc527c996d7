import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { WebhookError } from '../errors/webhook-error.js';
import { problemClientErrorHandler } from './client-errors.js';
import type { ResolvedIncomingOptions } from './incoming-options.js';
import type { IncomingWebhooks } from './incoming-webhooks.js';
import { WEBHOOK_PROBLEM_TYPES, type WebhookProblem } from './problem.js';
import { securityHeaders } from './security-headers.js';

/** Most ms the request line and headers may take to arrive (capped by `server.requestTimeoutMs`). */
const HEADERS_TIMEOUT_MS = 10_000;
/** Most ms an idle keep-alive connection is kept between requests. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * The manager's own fastify server, serving the incoming routes on `server.host`:`server.port`: the headers must
 * arrive within 10 s and the whole request within `server.requestTimeoutMs` (a body sent slowly is cut with a 408),
 * and anything but the webhook routes gets a 404 or 405 problem.
 */
export class WebhookServer {
  readonly #options: ResolvedIncomingOptions['server'];
  readonly #incoming: IncomingWebhooks;
  #app: FastifyInstance | undefined;
  #address: string | undefined;

  constructor(options: ResolvedIncomingOptions['server'], incoming: IncomingWebhooks) {
    this.#options = options;
    this.#incoming = incoming;
  }

  get address(): string | undefined {
    return this.#address;
  }

  /** @throws {WebhookError} when the server cannot listen (the port is taken, the host is not local). */
  async start(): Promise<void> {
    if (this.#app) return;
    const requestTimeout = this.#options.requestTimeoutMs;
    const headersTimeout = Math.min(HEADERS_TIMEOUT_MS, requestTimeout);
    const hardening = securityHeaders();
    const app = Fastify({
      logger: false,
      trustProxy: false,
      return503OnClosing: true,
      requestTimeout,
      connectionTimeout: requestTimeout * 2,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      http: {
        headersTimeout,
        requestTimeout,
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
        // Node checks the deadlines every this many ms (default 30 s, which lets a slow body run 30 s late).
        connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
      },
      clientErrorHandler: problemClientErrorHandler,
      // What the router refuses before any hook runs (a path it cannot decode, a segment past its 100-character
      // limit): a problem with the hardening headers, where fastify's own answer lacks them and repeats the path.
      frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
        const problem = routerRefusal(error.code);
        reply.headers(hardening).code(problem.status).type('application/problem+json').send(problem);
      },
    });
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(hardening);
      done();
    });
    app.setNotFoundHandler((request, reply) => notFound(app, request, reply));
    await app.register((scope) => this.#incoming.routes(scope));
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

  /** Stops listening; requests under way finish. */
  async stop(): Promise<void> {
    const app = this.#app;
    this.#app = undefined;
    this.#address = undefined;
    await app?.close();
  }
}

/** The problem for a request fastify's router refused; it never quotes the path. */
function routerRefusal(code: string): WebhookProblem {
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
