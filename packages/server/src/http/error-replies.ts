// How the server answers what went wrong: a problem document (RFC 9457) for a refusal it knows, 499 for a client that
// left, and for anything else a 500 that leaks nothing, with the details logged for the operator.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ClientGone } from './client-gone.js';
import { fastifyProblem, problemFor } from './error-problems.js';
import { PROBLEM_TYPES, type Problem, ProblemError } from './problem.js';
import { closeIfBodyUnread } from './unread-body.js';

/** The error answers of one built app. */
export class ErrorReplies {
  /** Whether the server logs through a mounted client's logger (else an unexpected error is a process warning). */
  readonly #logsToClient: boolean;

  constructor(logsToClient: boolean) {
    this.#logsToClient = logsToClient;
  }

  /** Answers `error`: its problem document when it is a known refusal, else a 500 (and the error logged). */
  send(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    if (error instanceof ProblemError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return this.sendProblem(reply, request, error.problem);
    }
    // Nobody is left to answer: the lookup was stopped on purpose, which is no error of ours.
    if (error instanceof ClientGone) {
      request.log.debug({ method: request.method, url: request.url.split('?')[0] }, error.message);
      return reply.code(499).send();
    }
    const known = problemFor(error) ?? fastifyProblem(error as FastifyError);
    if (known) return this.sendProblem(reply, request, known);
    // Anything else is our bug: say so without leaking internals, and keep the details for the operator.
    this.reportUnexpected(error, request);
    return this.sendProblem(reply, request, {
      type: PROBLEM_TYPES.internal,
      title: 'Internal error',
      status: 500,
      detail: 'the server failed to handle this request; the operator can find the cause in its log',
    });
  }

  /** Logs a failure of the server itself for the operator (the client's logger, else a process warning). */
  reportUnexpected(error: unknown, request: FastifyRequest): void {
    if (this.#logsToClient) {
      request.log.error({ err: error, method: request.method, url: request.url.split('?')[0] }, 'unexpected error');
    } else {
      process.emitWarning(
        `threatlib server: unexpected error on ${request.method} ${request.url.split('?')[0]}: ${(error as Error)?.stack ?? error}`,
      );
    }
  }

  /** Answers with `problem`, its `instance` the request's path. */
  sendProblem(reply: FastifyReply, request: FastifyRequest, problem: Problem) {
    closeIfBodyUnread(request, reply);
    return reply
      .code(problem.status)
      .type('application/problem+json')
      .send({ ...problem, instance: request.url.split('?')[0] });
  }
}
