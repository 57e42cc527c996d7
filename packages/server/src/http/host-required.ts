import { PROBLEM_TYPES, ProblemError } from './problem.js';

/**
 * An HTTP/1.1 request without `Host` is refused (RFC 9112 §3.2) with a problem document: node's own refusal has an
 * empty body, so the server turns node's check off (`requireHostHeader: false`) and makes it here.
 */
export function hostRequired(request: {
  raw: { httpVersion: string };
  headers: { host?: string };
}): ProblemError | undefined {
  if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return undefined;
  return new ProblemError(
    {
      type: PROBLEM_TYPES.malformedRequest,
      title: 'Malformed request',
      status: 400,
      detail: 'an HTTP/1.1 request needs a Host header',
    },
    { connection: 'close' },
  );
}
