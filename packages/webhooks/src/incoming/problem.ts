// The problem documents the webhook routes answer with: the shape and the error are core's
// (`@threatlib/core/http-server`), shared with the REST server; the `type`s only a webhook receiver answers with
// are added here.
import { HTTP_PROBLEM_TYPES, type Problem, ProblemError } from '@threatlib/core/http-server';

/**
 * The stable `type` of each problem the webhook routes answer with (RFC 9457): those of every threatlib HTTP server
 * (`HTTP_PROBLEM_TYPES`, the REST server's URIs where the meaning is the same, so one client handles both), and the
 * receiver's own.
 */
export const WEBHOOK_PROBLEM_TYPES = {
  ...HTTP_PROBLEM_TYPES,
  /** A signed message received before for another event: one message runs the handlers of one event. */
  messageConflict: 'https://threatlib.dev/problems/webhook-message-conflict',
  /** The event's handler failed: the sender should retry later. */
  handlerFailed: 'https://threatlib.dev/problems/webhook-handler-failed',
} as const;

/**
 * The one answer to a request whose signature did not verify, whatever failed (a header missing or malformed, the
 * timestamp outside the tolerance, no signature matching): saying which would help a forger.
 */
export const UNAUTHORIZED: Problem = Object.freeze({
  type: WEBHOOK_PROBLEM_TYPES.unauthorized,
  title: 'Unauthorized',
  status: 401,
  detail: 'the request is not signed as this endpoint requires',
});

/** A 400 about the payload, saying what is wrong with it. */
export function payloadProblem(type: string, title: string, detail: string): ProblemError {
  return new ProblemError({ type, title, status: 400, detail });
}
