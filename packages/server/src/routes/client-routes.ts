// The routes of one mounted client, under its prefix: authentication first, then each route group (threats,
// correlation, feeds, quotas, alerts, campaigns, STIX).

import type { ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import { type AuthenticationGuard, authenticateRoutes } from '../auth/authentication-hook.js';
import type { CampaignLog } from '../campaigns/campaign-log.js';
import type { RequestLimiter } from '../http/batch-rate-cost.js';
import { refuseNonJsonPosts } from '../http/json-only.js';
import { registerAlertRoutes } from './alert-routes.js';
import { registerCampaignRoutes } from './campaign-routes.js';
import { registerCorrelateRoute } from './correlate-route.js';
import { registerFeedRoutes } from './feed-routes.js';
import { registerQuotaRoutes } from './quota-routes.js';
import { registerStixRoutes } from './stix-routes.js';
import { registerThreatRoutes } from './threat-routes.js';

/** A client the server serves, how its requests are authenticated, and what its routes need. */
export interface ClientRoutesOptions extends AuthenticationGuard {
  client: ThreatClient;
  /** The campaigns the client detected, for `GET /campaigns`. */
  campaigns: CampaignLog;
  batchLimit: number;
  /** The rate limit's counters, charged one request per indicator of a batch. */
  batchLimiter: RequestLimiter | undefined;
  alertPageBytes: number;
}

/** Registers the routes of one mounted client on `app` (the scope of its prefix). */
export function registerClientRoutes(app: FastifyInstance, options: ClientRoutesOptions): void {
  const { client, authenticator, campaigns, failures, refuse, batchLimit, batchLimiter, alertPageBytes } = options;
  // Every route below, after its per-address rate limit; failed authentications count per address.
  authenticateRoutes(app, { authenticator, failures, refuse });

  refuseNonJsonPosts(app);
  registerThreatRoutes(app, { client, batchLimit, batchLimiter });
  registerCorrelateRoute(app, client);
  registerFeedRoutes(app, client);
  registerQuotaRoutes(app, client);
  registerAlertRoutes(app, { client, alertPageBytes });
  registerCampaignRoutes(app, client, campaigns);
  registerStixRoutes(app, batchLimit);
}
