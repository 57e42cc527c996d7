/**
 * The stable `type` of each problem (RFC 9457) that every HTTP server of threatlib answers with where the meaning is
 * the same (the REST server, a webhook receiver), so that one client handles them all. A server adds its own beside
 * them (`@threatlib/server`'s `PROBLEM_TYPES`).
 */
export const HTTP_PROBLEM_TYPES = {
  validation: 'https://threatlib.dev/problems/validation',
  malformedJson: 'https://threatlib.dev/problems/malformed-json',
  unsupportedMediaType: 'https://threatlib.dev/problems/unsupported-media-type',
  payloadTooLarge: 'https://threatlib.dev/problems/payload-too-large',
  unauthorized: 'https://threatlib.dev/problems/unauthorized',
  notFound: 'https://threatlib.dev/problems/not-found',
  methodNotAllowed: 'https://threatlib.dev/problems/method-not-allowed',
  rateLimited: 'https://threatlib.dev/problems/rate-limited',
  /** A request the HTTP parser refused (bad syntax, conflicting framing headers), or two Authorization headers. */
  malformedRequest: 'https://threatlib.dev/problems/malformed-request',
  /** The request (headers or body) did not arrive within the server's timeouts. */
  requestTimeout: 'https://threatlib.dev/problems/request-timeout',
  /** The request's headers are larger than the server reads. */
  headersTooLarge: 'https://threatlib.dev/problems/headers-too-large',
  internal: 'https://threatlib.dev/problems/internal',
} as const;

/** An RFC 9457 problem document. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** For validation problems: each offending field. */
  errors?: Array<{ path: string; message: string }>;
}

/**
 * An error that a server answers as its problem document, with `headers` added to the answer; anything else thrown
 * by a route becomes a generic 500.
 *
 * @example
 * ```ts
 * throw new ProblemError({ type: HTTP_PROBLEM_TYPES.notFound, title: 'Not found', status: 404 });
 * ```
 */
export class ProblemError extends Error {
  readonly problem: Problem;
  readonly headers: Record<string, string>;
  /** The answer's status, where fastify looks for it (a plugin's refusal, such as the rate limiter's). */
  readonly statusCode: number;

  constructor(problem: Problem, headers: Record<string, string> = {}) {
    super(problem.detail ?? problem.title);
    this.name = 'ProblemError';
    this.problem = problem;
    this.headers = headers;
    this.statusCode = problem.status;
  }
}
