import { checkHealth } from '../monitoring/check-health.js';
import type { HealthReport } from '../monitoring/health-report.js';
import { type FeedQuotaReport, quotaReports } from '../scheduler/quota-report.js';
import type { FeedStatusReport } from '../scout/feed-pipeline.js';
import type { IntegrationHealthReport } from './client-options.js';
import type { ClientParts } from './client-wiring.js';

/** Each active feed's status (see `ThreatClient.feedStatus`); a feed is configured when it needs no key or has one. */
export function feedStatusOf(parts: ClientParts): FeedStatusReport[] {
  return parts.pipeline.status(
    parts.feeds.active().map((feed) => ({
      feed,
      configured: !feed.requiresKey || parts.keys.hasKey(feed.id),
    })),
  );
}

/** Each registered integration's health (see `ThreatClient.integrationHealth`); one that throws is unhealthy. */
export async function integrationHealthOf(parts: ClientParts): Promise<IntegrationHealthReport[]> {
  const reports: IntegrationHealthReport[] = [];
  for (const entry of parts.integrations.entries()) {
    try {
      reports.push({ ...(await parts.integrations.healthOf(entry)), name: entry.name });
    } catch (error) {
      reports.push({ name: entry.name, healthy: false, detail: (error as Error)?.message ?? String(error) });
    }
  }
  return reports;
}

/** The client's health report (see `ThreatClient.health`). */
export function healthOf(parts: ClientParts, timeoutMs: number): Promise<HealthReport> {
  return checkHealth({
    clock: parts.clock,
    timeoutMs,
    feeds: feedStatusOf(parts),
    cache: parts.cache,
    vault: parts.vault,
    integrations: parts.integrations.entries().map((entry) => ({
      name: entry.name,
      check: () => parts.integrations.healthOf(entry),
    })),
  });
}

/** What is left of each active feed's quota (see `ThreatClient.quotas`). */
export function quotasOf(parts: ClientParts): Promise<FeedQuotaReport[]> {
  return quotaReports(
    parts.scheduler,
    parts.feeds.active().map((feed) => feed.id),
  );
}
