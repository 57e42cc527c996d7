import type { Server } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_TYPES } from './problem.js';

/**
 * Stops node from answering `Expect: 100-continue` by itself: by default it invites the body before any hook has
 * run, so a client without credentials is asked to send its body and then refused. Such requests are handled as any
 * other; {@link continueIfExpected} sends the invitation once a request is authenticated, and a refused one gets its
 * refusal without it (the client then never sends the body).
 */
export function deferContinue(server: Server): void {
  server.on('checkContinue', (request, response) => {
    server.emit('request', request, response);
  });
}

/** Invites the body of an authenticated request that asked with `Expect: 100-continue`. */
export function continueIfExpected(request: FastifyRequest, reply: FastifyReply): void {
  const expect = request.headers.expect;
  if (expect !== undefined && expect.toLowerCase() === '100-continue' && !reply.raw.headersSent) {
    reply.raw.writeContinue();
  }
}

/**
 * Answers a request whose `Expect` is anything but `100-continue` with a 417 problem document carrying `hardening`,
 * instead of node's bare 417; the expectation is not repeated. The connection is closed, as the body (if the client
 * sends it anyway) is never read.
 */
export function refuseUnknownExpectations(server: Server, hardening: Readonly<Record<string, string>>): void {
  server.on('checkExpectation', (_request, response) => {
    const body = JSON.stringify({
      type: PROBLEM_TYPES.malformedRequest,
      title: 'Expectation failed',
      status: 417,
      detail: 'the only expectation this server meets is "Expect: 100-continue"',
    });
    response.writeHead(417, {
      ...hardening,
      'content-type': 'application/problem+json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  });
}
