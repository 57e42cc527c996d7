import type { ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';

/** `GET /quotas`: each feed's remaining quota. */
export function registerQuotaRoutes(app: FastifyInstance, client: ThreatClient): void {
  app.get('/quotas', async () => ({ feeds: await client.quotas() }));
}
