// The problem documents the API answers with: the shape and the error are core's (`@threatlib/core/http-server`),
// shared with the webhook receiver; the `type`s only the REST API answers with are added here.
import { HTTP_PROBLEM_TYPES, ProblemError } from '@threatlib/core/http-server';

export { type Problem, ProblemError } from '@threatlib/core/http-server';

/**
 * The stable `type` of each problem the API answers with (RFC 9457); documented in the OpenAPI document. Those of
 * every threatlib HTTP server (`HTTP_PROBLEM_TYPES`), and the REST API's own.
 */
export const PROBLEM_TYPES = {
  ...HTTP_PROBLEM_TYPES,
  invalidIndicator: 'https://threatlib.dev/problems/invalid-indicator',
  batchTooLarge: 'https://threatlib.dev/problems/batch-too-large',
  forbidden: 'https://threatlib.dev/problems/forbidden',
  vaultLocked: 'https://threatlib.dev/problems/vault-locked',
  authUnavailable: 'https://threatlib.dev/problems/authentication-unavailable',
} as const;

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
