import { InvalidIndicatorError, type Logger, parseRecord, ValidationError } from '@threatlib/core';
import { type Problem, ProblemError, securityHeaders } from '@threatlib/core/http-server';
import type { Clock } from '@threatlib/core/integration';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebhookError } from '../errors/webhook-error.js';
import { INCOMING_DATA_SCHEMAS } from '../events/documented-events.js';
import { type EventBinding, eventOfRequest, shorten } from './event-binding.js';
import { GithubScheme } from './github-scheme.js';
import { DEFAULT_REPLAY_WINDOW_SECONDS, type ResolvedIncomingOptions, secretBytes } from './incoming-options.js';
import { LogThrottle } from './log-throttle.js';
import { UNAUTHORIZED, WEBHOOK_PROBLEM_TYPES } from './problem.js';
import { ReplayCache, type ReplayOutcome } from './replay-cache.js';
import type { SignatureScheme } from './signature-scheme.js';
import { StandardWebhooksScheme } from './standard-webhooks-scheme.js';
import { EVENT_NAME, readJsonBody, webhookMessage } from './webhook-payload.js';

/**
 * The handler of one incoming event: gets the payload's `data`. Resolving answers 204; throwing answers 500 (the
 * sender retries), except a core `ValidationError` or `InvalidIndicatorError`, which answers 400 with its message
 * (the data is wrong: retrying cannot help).
 */
export type IncomingHandler<Data = unknown> = (data: Data) => Promise<unknown> | unknown;

/** What the incoming side gets from the manager. */
export interface IncomingRuntime {
  logger: Logger;
  clock: Clock;
}

/** Counts of what the incoming side answered since it was made. */
export interface IncomingStats {
  /** Requests whose handlers all resolved. */
  handled: number;
  /**
   * Requests repeating a message already handled (or being handled) for the same event: answered without running a
   * handler.
   */
  replayed: number;
  /** Requests refused for their signature (401). */
  unauthorized: number;
  /**
   * Requests refused with 429 before anything was read: too many from one address, or from an address whose
   * signatures failed too often (only on the manager's own server).
   */
  limited: number;
  /**
   * Requests refused for their payload or event (4xx), once signed, or for a header the scheme requires besides the
   * signature (`X-GitHub-Delivery`, 400): a message received before for another event (409) included.
   */
  rejected: number;
  /** Requests a handler threw on (5xx). */
  failed: number;
}

/** Media types taken: `application/json` and any `application/<something>+json`, with parameters. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;
/** At most one log line about refused signatures per this many ms (a flood of forgeries must not flood the log). */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

interface Outcome {
  status: number;
  problem?: Problem;
}

/** A signed payload read: the event it is for and the data its handlers get, or why it is refused. */
type Reading = { event: string; data: unknown } | { problem: Problem };

/**
 * Counts requests whose signature failed, per client address: `@fastify/rate-limit`'s `createRateLimit()`. Asked with
 * `{increment: false}` it only reports (`remaining` 0: the address is refused until the window ends).
 */
export type FailureLimiter = (
  request: FastifyRequest,
  options?: { increment?: boolean },
) => Promise<{ isAllowed: boolean; remaining?: number; ttlInSeconds?: number; max?: number }>;

/** What {@link IncomingWebhooks.routes} takes besides the fastify scope. */
interface RoutesOptions {
  /** Counts refused signatures per address and refuses an address past its limit (the manager's own server). */
  failures?: FailureLimiter;
}

/**
 * The incoming side of a `WebhookManager`: the handlers by event, and the routes that verify a request's signature
 * over the exact bytes received, refuse replays, read the payload and run the handlers of its event.
 */
export class IncomingWebhooks {
  readonly #options: ResolvedIncomingOptions;
  readonly #runtime: IncomingRuntime;
  readonly #scheme: SignatureScheme | undefined;
  readonly #handlers = new Map<string, IncomingHandler[]>();
  /** What decides the event of a request: `server.pathEvents`, and whether the scheme signs the body only. */
  readonly #binding: EventBinding;
  readonly #replays: ReplayCache<Outcome>;
  readonly #stats: IncomingStats = { handled: 0, replayed: 0, unauthorized: 0, limited: 0, rejected: 0, failed: 0 };
  #failures: FailureLimiter | undefined;
  readonly #refusalLog: LogThrottle;
  readonly #conflictLog: LogThrottle;
  readonly #evictionLog: LogThrottle;

  constructor(options: ResolvedIncomingOptions, runtime: IncomingRuntime) {
    this.#options = options;
    this.#runtime = runtime;
    this.#refusalLog = new LogThrottle(runtime.clock, REFUSAL_LOG_INTERVAL_MS);
    this.#conflictLog = new LogThrottle(runtime.clock, REFUSAL_LOG_INTERVAL_MS);
    this.#evictionLog = new LogThrottle(runtime.clock, REFUSAL_LOG_INTERVAL_MS);
    this.#replays = new ReplayCache(options.limits.replayCacheSize, () => this.#logEarlyEviction());
    const pathEvents = options.server.pathEvents;
    this.#binding = {
      pathEvents: pathEvents === undefined ? undefined : new Map(Object.entries(pathEvents)),
      bodyOnly: options.authentication?.scheme === 'github',
      path: options.server.path,
    };
    const authentication = options.authentication;
    if (authentication) {
      const secrets = Array.isArray(authentication.secret) ? authentication.secret : [authentication.secret];
      this.#scheme =
        authentication.scheme === 'github'
          ? new GithubScheme(
              secrets.map((secret) => Buffer.from(secret, 'utf8')),
              authentication.replayWindowSeconds ?? DEFAULT_REPLAY_WINDOW_SECONDS,
            )
          : new StandardWebhooksScheme(secrets.map(secretBytes), authentication.toleranceSeconds);
    }
  }

  /** A copy of the counters. */
  get stats(): IncomingStats {
    return { ...this.#stats };
  }

  on(eventName: string, handler: IncomingHandler): void {
    if (!EVENT_NAME.test(eventName)) {
      throw new TypeError(
        `webhook event name ${JSON.stringify(eventName)} is not one: letters, digits, ".", "_", ":" and "-", at most 100`,
      );
    }
    if (typeof handler !== 'function') throw new TypeError(`the handler of "${eventName}" is not a function`);
    const list = this.#handlers.get(eventName) ?? [];
    list.push(handler);
    this.#handlers.set(eventName, list);
  }

  /**
   * Registers the webhook routes on `app`, which should be an encapsulated fastify context (a plugin's): the body
   * parsers, error answers and hardening headers set here stay in it.
   *
   * @throws {WebhookError} when the manager has no `authentication` (it would receive unsigned requests).
   */
  async routes(app: FastifyInstance, options: RoutesOptions = {}): Promise<void> {
    if (!this.#scheme) {
      throw new WebhookError(
        'start',
        'incoming webhooks need authentication: give the manager authentication: {type: "hmac", secret}',
      );
    }
    const hardening = securityHeaders();
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(hardening);
      done();
    });
    // The body is kept as the bytes received: the signature is over them, not over any re-serialisation.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    app.setErrorHandler((error: FastifyError, request, reply) => this.#answerError(error, request, reply));
    this.#failures = options.failures;
    // Before the body is read, after the rate limit: a route-level onRequest hook that a rate limiter registered at
    // the root adds when the route is declared runs first, so the guard is appended after it here.
    const guard = (request: FastifyRequest, reply: FastifyReply) => this.#guard(request, reply);
    app.addHook('onRoute', (routeOptions) => {
      const own = routeOptions.onRequest;
      routeOptions.onRequest = own === undefined ? [guard] : Array.isArray(own) ? [...own, guard] : [own, guard];
    });
    const route = {
      bodyLimit: this.#options.limits.bodyBytes,
      handler: (request: FastifyRequest, reply: FastifyReply) => this.#receive(request, reply),
    };
    const path = this.#options.server.path;
    app.post(path, route);
    app.post(`${path}/:event`, route);
  }

  async #receive(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const body = request.body;
    if (!Buffer.isBuffer(body)) {
      // A POST with no body at all: fastify ran no parser, whatever the Content-Type said.
      return answer(reply, request, {
        type: WEBHOOK_PROBLEM_TYPES.unsupportedMediaType,
        title: 'Unsupported media type',
        status: 415,
        detail: 'send the payload as application/json',
      });
    }
    const now = this.#runtime.clock.now();
    const scheme = this.#scheme as SignatureScheme;
    const verification = scheme.verify({ headers: request.headers, body }, now);
    if (!verification.verified) return this.#refuse(request, reply, verification.reason);
    const reading = this.#read(request, body);
    if ('problem' in reading) {
      // Nothing ran and no event was reached: the message is not bound to one yet.
      this.#stats.rejected++;
      return answer(reply, request, reading.problem);
    }
    const { event, data } = reading;
    const handlers = this.#handlers.get(event);
    if (!handlers || handlers.length === 0) {
      // Nothing can run: the message is not bound to this event (a replay to a path with no handler binds nothing).
      this.#stats.rejected++;
      return answer(reply, request, {
        type: WEBHOOK_PROBLEM_TYPES.notFound,
        title: 'Unknown event',
        status: 404,
        detail: `no handler is registered for the event "${event}"`,
      });
    }
    const result = await this.#replays.once(verification.replayKey, event, now, verification.replayableUntil, () =>
      this.#dispatch(request, event, handlers, data),
    );
    if (result.kind === 'conflict') {
      this.#stats.rejected++;
      this.#logConflict(request, event, result.boundTo);
      return answer(reply, request, {
        type: WEBHOOK_PROBLEM_TYPES.messageConflict,
        title: 'Message received for another event',
        status: 409,
        detail: `this signed message was received before for another event, so it cannot run the handlers of "${event}": one message runs the handlers of one event`,
      });
    }
    if (result.kind === 'replayed') this.#stats.replayed++;
    const outcome: Outcome | ReplayOutcome = result.outcome;
    if ('problem' in outcome && outcome.problem) return answer(reply, request, outcome.problem);
    return reply.code(outcome.status).send();
  }

  /**
   * Runs before the body is read: refuses an address whose signatures failed too often (429), and a request whose
   * headers cannot carry a valid signature (401), so neither costs reading a body nor an HMAC over it.
   */
  async #guard(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (this.#failures) {
      const state = await this.#failures(request, { increment: false });
      if (!state.isAllowed && state.remaining !== undefined && state.remaining <= 0) {
        this.#stats.limited++;
        const retry = Math.max(1, state.ttlInSeconds ?? 1);
        reply.header('retry-after', String(retry));
        return answer(reply, request, {
          type: WEBHOOK_PROBLEM_TYPES.rateLimited,
          title: 'Too many requests',
          status: 429,
          detail: `${state.max ?? 'too many'} requests from this address failed their signature; retry in ${retry} s`,
        });
      }
    }
    const scheme = this.#scheme as SignatureScheme;
    const precheck = scheme.precheck(request.headers, this.#runtime.clock.now());
    if (precheck.plausible) return undefined;
    if (precheck.badRequest !== undefined) {
      this.#stats.rejected++;
      return answer(reply, request, {
        type: WEBHOOK_PROBLEM_TYPES.malformedRequest,
        title: 'Malformed request',
        status: 400,
        detail: precheck.badRequest,
      });
    }
    return this.#refuse(request, reply, precheck.reason);
  }

  /** Answers the one 401, counts it (toward the address's limit too) and logs why, at most a line a minute. */
  async #refuse(request: FastifyRequest, reply: FastifyReply, reason: string): Promise<FastifyReply> {
    this.#stats.unauthorized++;
    this.#logRefusal((this.#scheme as SignatureScheme).name, reason, request.ip);
    await this.#failures?.(request);
    return answer(reply, request, UNAUTHORIZED);
  }

  /**
   * Reads a signed payload and finds the event it is for.
   *
   * @returns the event and its handlers' data, or the 4xx problem the request is refused with.
   */
  #read(request: FastifyRequest, body: Buffer): Reading {
    try {
      const message = webhookMessage(readJsonBody(body, this.#options.limits.jsonDepth));
      const segment = (request.params as { event?: string } | undefined)?.event;
      return { event: eventOfRequest(segment, message, this.#binding), data: message.data };
    } catch (error) {
      if (error instanceof ProblemError) return { problem: error.problem };
      throw error;
    }
  }

  /** Runs `handlers` of `event` with `data`, once its data is what the event documents; never throws. */
  async #dispatch(
    request: FastifyRequest,
    event: string,
    handlers: readonly IncomingHandler[],
    data: unknown,
  ): Promise<Outcome> {
    try {
      const schema = INCOMING_DATA_SCHEMAS.get(event);
      const checked = schema === undefined ? data : parseRecord(schema, data, `${event} data`);
      for (const handler of handlers) await handler(checked);
    } catch (error) {
      if (ValidationError.isInstance(error) || InvalidIndicatorError.isInstance(error)) {
        this.#stats.rejected++;
        return {
          status: 400,
          problem: {
            type: WEBHOOK_PROBLEM_TYPES.validation,
            title: 'Invalid data',
            status: 400,
            detail: error.message,
          },
        };
      }
      this.#stats.failed++;
      this.#runtime.logger.error(
        { category: 'integration', event, messageId: messageIdOf(request), err: error },
        `the handler of webhook event "${event}" failed; the sender is told to retry (500)`,
      );
      return {
        status: 500,
        problem: {
          type: WEBHOOK_PROBLEM_TYPES.handlerFailed,
          title: 'Handler failed',
          status: 500,
          detail: `the handler of "${event}" failed; retry later`,
        },
      };
    }
    this.#stats.handled++;
    return { status: 204 };
  }

  /** Fastify's own refusals (body too large, media type, framing) and anything unexpected, as problem answers. */
  #answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (error instanceof ProblemError) {
      // The rate limiter's refusal (its errorResponseBuilder makes one of these).
      if (error.problem.status === 429) this.#stats.limited++;
      return answer(reply, request, error.problem);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return answer(reply, request, {
          type: WEBHOOK_PROBLEM_TYPES.payloadTooLarge,
          title: 'Payload too large',
          status: 413,
          detail: `the body is larger than ${this.#options.limits.bodyBytes} bytes`,
        });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return answer(reply, request, {
          type: WEBHOOK_PROBLEM_TYPES.unsupportedMediaType,
          title: 'Unsupported media type',
          status: 415,
          // The Content-Type is not repeated: no answer quotes a request header.
          detail: 'send the payload as application/json',
        });
      default:
        if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
          return answer(reply, request, {
            type: WEBHOOK_PROBLEM_TYPES.malformedRequest,
            title: 'Malformed request',
            status: 400,
            detail: 'the request could not be read (its body does not match its framing headers?)',
          });
        }
        this.#runtime.logger.error(
          { category: 'integration', err: error, url: request.url.split('?')[0] },
          'unexpected error receiving a webhook',
        );
        return answer(reply, request, {
          type: WEBHOOK_PROBLEM_TYPES.internal,
          title: 'Internal error',
          status: 500,
          detail: 'the webhook could not be received; the operator can find the cause in its log',
        });
    }
  }

  /** Logs refused signatures, at most one line a minute, with how many were refused since the last line. */
  #logRefusal(scheme: string, reason: string, address: string): void {
    const refused = this.#refusalLog.due();
    if (refused === undefined) return;
    this.#runtime.logger.warn(
      { category: 'integration', scheme, reason, address, refused },
      `refused a webhook whose signature did not verify (${reason}); ${refused} refused since the last such line`,
    );
  }

  /** Logs a signed message refused for another event than its first (409), at most one line a minute. */
  #logConflict(request: FastifyRequest, event: string, boundTo: string): void {
    const refused = this.#conflictLog.due();
    if (refused === undefined) return;
    this.#runtime.logger.warn(
      { category: 'integration', event, boundTo, messageId: messageIdOf(request), address: request.ip, refused },
      `refused a signed webhook for "${event}" that was received before for "${boundTo}" (replayed to another path?); ${refused} refused since the last such line`,
    );
  }

  /** Logs that the replay cache forgot messages before their time, at most one line a minute. */
  #logEarlyEviction(): void {
    const forgotten = this.#evictionLog.due();
    if (forgotten === undefined) return;
    this.#runtime.logger.warn(
      { category: 'integration', replayCacheSize: this.#options.limits.replayCacheSize, forgotten },
      `the webhook replay cache is full (limits.replayCacheSize ${this.#options.limits.replayCacheSize}): messages are forgotten before their replay window ends, and a replay of one would run again; raise the size${this.#options.authentication?.scheme === 'github' ? ' or lower authentication.replayWindowSeconds' : ''} (${forgotten} forgotten early since the last such line)`,
    );
  }
}

function answer(reply: FastifyReply, request: FastifyRequest, problem: Problem): FastifyReply {
  // A refused request's unread body would otherwise be drained on a keep-alive connection.
  if (!request.raw.complete) reply.header('connection', 'close');
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send({ ...problem, instance: request.url.split('?')[0] });
}

function messageIdOf(request: FastifyRequest): string | undefined {
  const id = request.headers['webhook-id'] ?? request.headers['x-github-delivery'];
  return typeof id === 'string' ? shorten(id) : undefined;
}
