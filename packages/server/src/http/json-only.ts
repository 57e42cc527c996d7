import type { FastifyInstance } from 'fastify';
import { PROBLEM_TYPES, ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes a POST with no body at all (no Content-Type needed then); a body it gets must be JSON. */
    bodyOptional?: boolean;
    /** The route (the feed proxy) takes `application/x-www-form-urlencoded` as well as JSON. */
    acceptsForm?: boolean;
  }
}

/**
 * Refuses, with 415, a POST whose body is not JSON: fastify parses text/plain too; the API takes JSON only. A route
 * with `config.bodyOptional` also takes a POST with no body; one whose `config.acceptsForm` is true (the feed proxy)
 * takes `application/x-www-form-urlencoded` as well.
 */
export function refuseNonJsonPosts(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.routeOptions.config.bodyOptional && request.body === undefined && !hasBody(request.headers)) {
      return done();
    }
    const type = request.headers['content-type'] ?? '';
    const form =
      /^application\/x-www-form-urlencoded\b/i.test(type) && request.routeOptions.config.acceptsForm === true;
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

/** Whether a request says it carries a body (RFC 9112 section 6.3): a Transfer-Encoding, or a Content-Length above 0. */
function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
