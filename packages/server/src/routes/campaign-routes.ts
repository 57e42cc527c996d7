import type { ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import type { CampaignLog } from '../campaigns/campaign-log.js';

/** `GET /campaigns`: whether tracking is on, and the campaigns detected since the server started. */
export function registerCampaignRoutes(app: FastifyInstance, client: ThreatClient, log: CampaignLog): void {
  app.get('/campaigns', async () => ({ enabled: client.config.campaigns.enabled, campaigns: log.list() }));
}
