import type { ThreatClient } from '@threatlib/core';

/** One mounted client's part of the `GET /health` answer. */
export interface ClientHealth {
  prefix: string;
  state: ThreatClient['state'];
  /** Whether the client's checks ran (`enterprise.monitoring.healthChecks`); without them only `state` counts. */
  checked: boolean;
  /** `client.health()`'s verdict, when checked. */
  health?: 'healthy' | 'degraded' | 'unhealthy';
  /** Why it is not healthy, one line each. */
  reasons?: string[];
  checkedAt?: string;
  feeds: Array<{ feed: string; configured: boolean; breaker: string; keyRejected?: boolean; status?: string }>;
  cache?: { status: string; enabled: boolean; kind?: string; roundTripMs?: number; reason?: string };
  vault?: { status: string; configured: boolean; locked?: boolean };
  integrations: Array<{ name: string; healthy: boolean; detail?: string }>;
}

/**
 * A mounted client's health for `GET /health`, from `client.health()`. With `enterprise.monitoring.healthChecks`
 * off, nothing is probed (no cache round trip, no integration call): the answer is the client's lifecycle state.
 * Last error messages are left out: `/health` needs no authentication, and they can name the indicators asked.
 */
export async function clientHealth(prefix: string, client: ThreatClient): Promise<ClientHealth> {
  const base = { prefix, state: client.state };
  if (!client.config.enterprise.monitoring.healthChecks)
    return { ...base, checked: false, feeds: [], integrations: [] };
  const report = await client.health();
  const { feeds, cache, vault, integrations } = report.checks;
  return {
    ...base,
    checked: true,
    health: report.status,
    reasons: report.reasons,
    checkedAt: report.checkedAt,
    feeds: feeds.map((f) => ({
      feed: f.feed,
      configured: f.configured,
      breaker: f.breaker,
      keyRejected: f.keyRejected,
      status: f.status,
    })),
    cache,
    vault: {
      status: vault.status,
      configured: vault.configured,
      ...(vault.configured ? { locked: vault.locked } : {}),
    },
    integrations: integrations.map((i) => ({
      name: i.name,
      healthy: i.healthy,
      ...(i.detail === undefined ? {} : { detail: i.detail }),
    })),
  };
}

/** Whether a client can take requests: running, and (when checked) not unhealthy. */
export function isReady(health: ClientHealth): boolean {
  return health.state === 'running' && health.health !== 'unhealthy';
}
