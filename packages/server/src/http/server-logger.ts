import type { ThreatClient } from '@threatlib/core';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The client's logger as fastify's, when it is a pino logger (what `createLogger` makes), as a child with the
 * category "server"; undefined for a logger of another kind (a plain `{debug, info, warn, error}` object), which
 * fastify cannot use.
 */
export function serverLogger(client: ThreatClient | undefined): FastifyBaseLogger | undefined {
  const logger = client?.logger as Partial<FastifyBaseLogger> | undefined;
  if (
    typeof logger?.child !== 'function' ||
    typeof logger.fatal !== 'function' ||
    typeof logger.trace !== 'function' ||
    typeof logger.level !== 'string'
  ) {
    return undefined;
  }
  return logger.child({ category: 'server' }) as FastifyBaseLogger;
}
