import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Asks node to close the connection after this reply when the request announced a body that was never read: it was
 * refused before parsing (no credentials, rate limited, no such route) or its parsing failed. Otherwise node would
 * read a trickled body to its end to keep the connection alive for the next request; with `Connection: close` it
 * drops the rest and closes once the reply is written.
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (request.body !== undefined) return;
  const { 'content-length': length, 'transfer-encoding': encoding } = request.headers;
  if (encoding !== undefined || (length !== undefined && length !== '0')) reply.header('connection', 'close');
}
