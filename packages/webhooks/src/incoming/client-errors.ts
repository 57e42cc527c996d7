import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { WEBHOOK_PROBLEM_TYPES, type WebhookProblem } from './problem.js';
import { securityHeaders } from './security-headers.js';

/** The problem a request node's HTTP parser refused (or a timeout cut) gets; never quotes the request. */
function clientErrorProblem(code: string | undefined): WebhookProblem {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        type: WEBHOOK_PROBLEM_TYPES.requestTimeout,
        title: 'Request timeout',
        status: 408,
        detail: 'the request did not arrive in time',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        type: WEBHOOK_PROBLEM_TYPES.headersTooLarge,
        title: 'Request header fields too large',
        status: 431,
        detail: 'the request line and headers are larger than the server reads',
      };
    default:
      return {
        type: WEBHOOK_PROBLEM_TYPES.malformedRequest,
        title: 'Malformed request',
        status: 400,
        detail: 'the request is not valid HTTP/1.1',
      };
  }
}

/**
 * The manager's own server's `clientErrorHandler`: what node's HTTP parser refuses, and requests that time out
 * (a body sent too slowly), get a problem document with the hardening headers, then the connection is closed.
 */
export function problemClientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const problem = clientErrorProblem(error.code);
    const body = JSON.stringify(problem);
    const hardening = Object.entries(securityHeaders())
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${hardening}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
