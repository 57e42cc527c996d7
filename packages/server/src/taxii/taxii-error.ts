import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problem.js';
import { closeIfBodyUnread } from '../http/unread-body.js';
import { TAXII_MEDIA_TYPE } from './media-types.js';

/** A TAXII 2.1 error message (section 3.6.1): what every TAXII endpoint answers a failure with. */
interface TaxiiErrorMessage {
  title: string;
  description?: string;
  /** The HTTP status, as a string, as the specification writes it. */
  http_status: string;
}

/** An error a TAXII route answers with a TAXII error message, and the headers that go with it. */
export class TaxiiError extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Record<string, string>;

  constructor(status: number, title: string, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.name = 'TaxiiError';
    this.status = status;
    this.title = title;
    this.headers = headers;
  }
}

/**
 * Any error a TAXII route, its hooks (rate limit, authentication, body parser) or fastify raised, as a TAXII error:
 * a problem of the REST API keeps its status, title, detail and headers (`WWW-Authenticate`, `Retry-After`); a
 * request fastify refused (a body too large, a Content-Length that lies) gets the status that says so. Anything else
 * is undefined: the route's own failure.
 */
function asTaxiiError(error: unknown): TaxiiError | undefined {
  if (error instanceof TaxiiError) return error;
  if (error instanceof ProblemError) {
    const { status, title, detail } = error.problem;
    return new TaxiiError(status, title, detail ?? title, error.headers);
  }
  const withProblem = error as { problem?: ProblemError['problem'] } | undefined;
  if (withProblem?.problem) {
    const { status, title, detail } = withProblem.problem;
    return new TaxiiError(status, title, detail ?? title);
  }
  const fastify = error as Partial<FastifyError> | undefined;
  switch (fastify?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TaxiiError(
        413,
        'Payload too large',
        'the request body is larger than max_content_length (see the API root)',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new TaxiiError(400, 'Malformed request', 'the body is not as long as its Content-Length says');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new TaxiiError(400, 'Malformed JSON', 'the request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new TaxiiError(415, 'Unsupported media type', `send ${TAXII_MEDIA_TYPE}`);
    default:
      if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
        return new TaxiiError(fastify.statusCode, 'Bad request', String(fastify.message ?? 'the request was refused'));
      }
      return undefined;
  }
}

/**
 * Answers `error` with a TAXII error message (`application/taxii+json;version=2.1`). A failure of the server itself
 * is a 500 that says so without its internals; `report` gets the error for the operator's log.
 */
export function sendTaxiiError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  report: (error: unknown, request: FastifyRequest) => void,
): FastifyReply {
  let known = asTaxiiError(error);
  if (known === undefined) {
    report(error, request);
    known = new TaxiiError(
      500,
      'Internal error',
      'the server failed to handle this request; the operator can find the cause in its log',
    );
  }
  for (const [name, value] of Object.entries(known.headers)) reply.header(name, value);
  closeIfBodyUnread(request, reply);
  const body: TaxiiErrorMessage = { title: known.title, description: known.message, http_status: String(known.status) };
  return sendTaxii(reply.code(known.status), body);
}

/**
 * Sends `body` as TAXII JSON with the Content-Type exactly `application/taxii+json;version=2.1`: as a Buffer, which
 * fastify leaves alone (an object or a string would have the type rewritten, `version="2.1"; charset=utf-8`, which
 * the reference client refuses).
 */
export function sendTaxii(reply: FastifyReply, body: unknown): FastifyReply {
  const json = typeof body === 'string' ? body : JSON.stringify(body);
  return reply.header('content-type', TAXII_MEDIA_TYPE).send(Buffer.from(json, 'utf8'));
}
