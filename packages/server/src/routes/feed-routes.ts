import type { ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import { registerFeedProxy } from '../feed-proxy/feed-proxy-route.js';

/** `GET /feeds/status` (each feed's breaker, quota and last error) and the feed proxy for pages. */
export function registerFeedRoutes(app: FastifyInstance, client: ThreatClient): void {
  app.get('/feeds/status', async () => ({ feeds: client.feedStatus() }));
  registerFeedProxy(app, client);
}
