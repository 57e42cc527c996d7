/**
 * The stable `type` of each problem the webhook routes answer with (RFC 9457): the REST server's URIs
 * (`@threatlib/server`'s `PROBLEM_TYPES`) where the meaning is the same, so one client handles both.
 */
export const WEBHOOK_PROBLEM_TYPES = {
  validation: 'https://threatlib.dev/problems/validation',
  malformedJson: 'https://threatlib.dev/problems/malformed-json',
  unsupportedMediaType: 'https://threatlib.dev/problems/unsupported-media-type',
  payloadTooLarge: 'https://threatlib.dev/problems/payload-too-large',
  unauthorized: 'https://threatlib.dev/problems/unauthorized',
  notFound: 'https://threatlib.dev/problems/not-found',
  methodNotAllowed: 'https://threatlib.dev/problems/method-not-allowed',
  malformedRequest: 'https://threatlib.dev/problems/malformed-request',
  requestTimeout: 'https://threatlib.dev/problems/request-timeout',
  headersTooLarge: 'https://threatlib.dev/problems/headers-too-large',
  rateLimited: 'https://threatlib.dev/problems/rate-limited',
  /** A signed message received before for another event: one message runs the handlers of one event. */
  messageConflict: 'https://threatlib.dev/problems/webhook-message-conflict',
  /** The event's handler failed: the sender should retry later. */
  handlerFailed: 'https://threatlib.dev/problems/webhook-handler-failed',
  internal: 'https://threatlib.dev/problems/internal',
} as const;

/** An RFC 9457 problem document. */
export interface WebhookProblem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
}

/** An error that the webhook routes answer as its problem document. */
export class WebhookProblemError extends Error {
  readonly problem: WebhookProblem;
  /** For fastify: the answer's status. */
  readonly statusCode: number;

  constructor(problem: WebhookProblem) {
    super(problem.detail ?? problem.title);
    this.name = 'WebhookProblemError';
    this.problem = problem;
    this.statusCode = problem.status;
  }
}

/**
 * The one answer to a request whose signature did not verify, whatever failed (a header missing or malformed, the
 * timestamp outside the tolerance, no signature matching): saying which would help a forger.
 */
export const UNAUTHORIZED: WebhookProblem = Object.freeze({
  type: WEBHOOK_PROBLEM_TYPES.unauthorized,
  title: 'Unauthorized',
  status: 401,
  detail: 'the request is not signed as this endpoint requires',
});

/** A 400 about the payload, saying what is wrong with it. */
export function payloadProblem(type: string, title: string, detail: string): WebhookProblemError {
  return new WebhookProblemError({ type, title, status: 400, detail });
}
