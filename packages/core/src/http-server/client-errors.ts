import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { HTTP_PROBLEM_TYPES, type Problem } from './problem.js';
import { securityHeaders } from './security-headers.js';

/** The error node's HTTP server hands to `clientError`: a parser error (`HPE_*`) or a timeout. */
export interface ClientError extends Error {
  code?: string;
}

/**
 * The problem a request refused by node's HTTP parser (or cut by a timeout) gets. The detail names what was wrong in
 * the parser's terms and never quotes the request: the bytes that broke it may be a credential.
 */
function clientErrorProblem(error: ClientError): Problem {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        type: HTTP_PROBLEM_TYPES.requestTimeout,
        title: 'Request timeout',
        status: 408,
        detail: 'the request did not arrive in time',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        type: HTTP_PROBLEM_TYPES.headersTooLarge,
        title: 'Request header fields too large',
        status: 431,
        detail: 'the request line and headers are larger than the server reads',
      };
    default:
      return {
        type: HTTP_PROBLEM_TYPES.malformedRequest,
        title: 'Malformed request',
        status: 400,
        detail: `the request is not valid HTTP/1.1: ${PARSER_REASONS[error.code ?? ''] ?? 'the server could not parse it'}`,
      };
  }
}

/** llhttp's error codes, in words; the parser's own messages are fine but these say what to fix. */
const PARSER_REASONS: Record<string, string> = {
  HPE_INVALID_METHOD: 'the method is not a valid token (or more data followed a request than its framing said)',
  HPE_INVALID_URL: 'the request target is not valid (a raw space or control character?)',
  HPE_INVALID_CONSTANT: 'the request line is malformed (a raw space in the target? encode it as %20)',
  HPE_INVALID_VERSION: 'the HTTP version is not valid',
  HPE_INVALID_HEADER_TOKEN: 'a header name or value holds a character it may not (a control character such as NUL?)',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length is given twice, or together with Transfer-Encoding',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is not valid here, or is given together with Content-Length',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size of the chunked body is not valid',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'the chunk extensions are too large',
  HPE_LF_EXPECTED: 'a line does not end with CRLF',
  HPE_CR_EXPECTED: 'a line does not end with CRLF',
  HPE_UNEXPECTED_SPACE: 'a header line starts with, or a header name ends with, whitespace',
  HPE_STRICT: 'it breaks the strict HTTP/1.1 grammar',
  HPE_CLOSED_CONNECTION: 'data arrived after a request that asked to close the connection',
};

/** The hardening headers of every answer (`securityHeaders()`), as raw header lines; worked out on first use. */
let hardeningLines: string | undefined;

/**
 * The full HTTP/1.1 response carrying `problem`, closing the connection, with the same hardening headers as every
 * answer fastify writes (CSP, `nosniff`, frame options, `Cache-Control: no-store`, ...).
 */
function rawProblemResponse(problem: Problem): string {
  hardeningLines ??= Object.entries(securityHeaders())
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const body = JSON.stringify(problem);
  return (
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n` +
    'Content-Type: application/problem+json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    hardeningLines +
    'Connection: close\r\n' +
    '\r\n' +
    body
  );
}

/**
 * fastify's `clientErrorHandler` (or the handler of a node server's `clientError` event): answers what node's HTTP
 * parser refused, and requests that timed out, with a problem document (fastify's own answer is JSON of another
 * shape, and node's is an empty body) carrying the {@link securityHeaders}, then closes the connection. Nothing is
 * written once a response has started on the connection, or to a socket already gone.
 *
 * @param log called once per answered error, with the error's code only (never its raw packet).
 *
 * @example
 * ```ts
 * const app = fastify({ clientErrorHandler: problemClientErrorHandler((entry) => app.log.debug(entry, 'client error')) });
 * ```
 */
export function problemClientErrorHandler(
  log: (entry: { code: string | undefined; status: number }) => void = () => {},
): (error: ClientError, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = clientErrorProblem(error);
    // node's own rule (lib/_http_server.js socketOnError): a response may be written unless one has started.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      socket.write(rawProblemResponse(problem));
      log({ code: error.code, status: problem.status });
    }
    socket.destroy();
  };
}
