/** The stable `type` of each problem the API answers with (RFC 9457); documented in the OpenAPI document. */
export const PROBLEM_TYPES = {
  validation: 'https://threatlib.dev/problems/validation',
  invalidIndicator: 'https://threatlib.dev/problems/invalid-indicator',
  malformedJson: 'https://threatlib.dev/problems/malformed-json',
  unsupportedMediaType: 'https://threatlib.dev/problems/unsupported-media-type',
  payloadTooLarge: 'https://threatlib.dev/problems/payload-too-large',
  batchTooLarge: 'https://threatlib.dev/problems/batch-too-large',
  unauthorized: 'https://threatlib.dev/problems/unauthorized',
  forbidden: 'https://threatlib.dev/problems/forbidden',
  notFound: 'https://threatlib.dev/problems/not-found',
  methodNotAllowed: 'https://threatlib.dev/problems/method-not-allowed',
  rateLimited: 'https://threatlib.dev/problems/rate-limited',
  vaultLocked: 'https://threatlib.dev/problems/vault-locked',
  authUnavailable: 'https://threatlib.dev/problems/authentication-unavailable',
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

/** An error that becomes a problem response; anything else thrown by a route becomes a generic 500. */
export class ProblemError extends Error {
  readonly problem: Problem;
  readonly headers: Record<string, string>;

  constructor(problem: Problem, headers: Record<string, string> = {}) {
    super(problem.detail ?? problem.title);
    this.name = 'ProblemError';
    this.problem = problem;
    this.headers = headers;
  }
}

/** A 400 listing each invalid field. */
export function validationProblem(subject: string, errors: Array<{ path: string; message: string }>): ProblemError {
  return new ProblemError({
    type: PROBLEM_TYPES.validation,
    title: 'Request validation failed',
    status: 400,
    detail: `${subject}: ${errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ')}`,
    errors,
  });
}
