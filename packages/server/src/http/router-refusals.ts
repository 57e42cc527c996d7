import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_TYPES, type Problem } from './problem.js';

/** The longest route parameter (an alert id, say) the router reads; a longer one gets 414. */
export const MAX_PARAM_LENGTH = 1024;

/**
 * The problem for what fastify's router refuses before any hook or route runs: a path it cannot decode (broken
 * percent-encoding, bytes that are not UTF-8) or a parameter past {@link MAX_PARAM_LENGTH}. The detail never quotes
 * the path: fastify's own answer does, and a client may have put a credential there.
 */
function routerRefusalProblem(error: Pick<FastifyError, 'code'>): Problem {
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return {
        type: PROBLEM_TYPES.malformedRequest,
        title: 'URI too long',
        status: 414,
        detail: `a segment of the path is longer than the ${MAX_PARAM_LENGTH} characters the server reads`,
      };
    case 'FST_ERR_BAD_URL':
      return {
        type: PROBLEM_TYPES.malformedRequest,
        title: 'Malformed request',
        status: 400,
        detail:
          'the path has broken percent-encoding: a "%" not followed by two hex digits, or escapes that are not UTF-8',
      };
    default:
      return {
        type: PROBLEM_TYPES.malformedRequest,
        title: 'Malformed request',
        status: 400,
        detail: 'the server could not route this request',
      };
  }
}

/**
 * fastify's `frameworkErrors`: answers what the router refused with a problem document carrying `hardening` (no
 * `onRequest` hook runs for these requests, so the headers every answer carries are set here).
 */
export function routerRefusalHandler(
  hardening: Readonly<Record<string, string>>,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, _request, reply) => {
    const problem = routerRefusalProblem(error);
    reply.headers(hardening).code(problem.status).type('application/problem+json').send(problem);
  };
}
