import { PROBLEM_TYPES, type Problem, ProblemError } from './problem.js';

/**
 * `@fastify/rate-limit`'s `errorResponseBuilder`: the 429 problem of an address past `max` requests per `windowMs`,
 * saying when to retry.
 */
export function rateLimitedProblem(windowMs: number) {
  return (_request: unknown, context: { max: number; ttl: number }): ProblemError & { statusCode: number } => {
    const problem: Problem = {
      type: PROBLEM_TYPES.rateLimited,
      title: 'Too many requests',
      status: 429,
      detail: `at most ${context.max} requests per ${Math.round(windowMs / 1000)} s from one address; retry in ${Math.ceil(context.ttl / 1000)} s`,
    };
    return Object.assign(new ProblemError(problem), { statusCode: 429 });
  };
}
