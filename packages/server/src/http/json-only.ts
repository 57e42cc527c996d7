import type { FastifyInstance } from 'fastify';
import { PROBLEM_TYPES, ProblemError } from './problem.js';

/**
 * Refuses, with 415, a POST whose body is not JSON: fastify parses text/plain too; the API takes JSON only. A route
 * whose `config.acceptsForm` is true (the feed proxy) takes `application/x-www-form-urlencoded` as well.
 */
export function refuseNonJsonPosts(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const type = request.headers['content-type'] ?? '';
    const form =
      /^application\/x-www-form-urlencoded\b/i.test(type) &&
      (request.routeOptions.config as { acceptsForm?: boolean } | undefined)?.acceptsForm === true;
    if (request.method === 'POST' && !form && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      return done(
        new ProblemError({
          type: PROBLEM_TYPES.unsupportedMediaType,
          title: 'Unsupported media type',
          status: 415,
          // The Content-Type is not repeated: no answer quotes a request header (it may hold a secret).
          detail:
            request.headers['content-type'] === undefined
              ? 'send application/json: this request has no Content-Type'
              : 'send application/json: the Content-Type of this request is not JSON',
        }),
      );
    }
    done();
  });
}
