import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_TYPES, type Problem } from './problem.js';

/**
 * Answers a request no route takes: 405 with `Allow` when the path answers other methods, 404 otherwise, both as
 * problem documents sent through `sendProblem`.
 */
export function answerUnrouted(
  app: FastifyInstance,
  sendProblem: (reply: FastifyReply, request: FastifyRequest, problem: Problem) => unknown,
): void {
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((method) =>
      app.hasRoute({ method: method as 'GET', url }),
    );
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, request, {
        type: PROBLEM_TYPES.methodNotAllowed,
        title: 'Method not allowed',
        status: 405,
        detail: `${url} answers ${allowed.join(', ')}, not ${request.method}`,
      });
    }
    return sendProblem(reply, request, {
      type: PROBLEM_TYPES.notFound,
      title: 'Not found',
      status: 404,
      detail: `no route ${request.method} ${url}`,
    });
  };
  // Answered before fastify parses the body: an unrouted body method (QUERY, PROPFIND...) would otherwise get a
  // 400 about its missing Content-Type instead of the 404/405 that says what is really wrong.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) notFound(request, reply);
    else done();
  });
  app.setNotFoundHandler(notFound);
}
