import type { Server } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

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
