import type { CacheStore } from '../cache/cache-store.js';
import type { IntegrationHealth } from '../integration/integration.js';
import type { Clock } from '../scheduler/clock.js';
import type { FeedStatusReport } from '../scout/feed-pipeline.js';
import type { Vault } from '../vault/vault.js';
import { probeCache } from './cache-probe.js';
import {
  type FeedHealth,
  type HealthReport,
  type IntegrationHealthCheck,
  summariseHealth,
  type VaultHealth,
} from './health-report.js';
import { withinTime } from './time-limit.js';

/** What {@link checkHealth} looks at: the client's parts, as the client hands them over. */
export interface HealthSources {
  clock: Clock;
  /** Most time the cache round trip and each integration's `health()` may take, in ms. */
  timeoutMs: number;
  feeds: readonly FeedStatusReport[];
  cache: CacheStore | undefined;
  vault: Vault | undefined;
  integrations: ReadonlyArray<{ name: string; check: () => Promise<IntegrationHealth> }>;
}

/** Runs every check at once (the cache probe and integrations concurrently) and summarises them. */
export async function checkHealth(sources: HealthSources): Promise<HealthReport> {
  const { clock, timeoutMs } = sources;
  const started = performance.now();
  const checkedAt = new Date(clock.now()).toISOString();
  const [cache, integrations] = await Promise.all([
    probeCache(sources.cache, { clock, timeoutMs }),
    Promise.all(sources.integrations.map((entry) => checkIntegration(entry, clock, timeoutMs))),
  ]);
  const checks: HealthReport['checks'] = {
    feeds: sources.feeds.map(feedHealth),
    cache,
    vault: vaultHealth(sources.vault),
    integrations,
  };
  return {
    ...summariseHealth(checks),
    checkedAt,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    checks,
  };
}

function feedHealth(report: FeedStatusReport): FeedHealth {
  const { breaker, keyRejected } = report;
  const [status, reason]: [FeedHealth['status'], string | undefined] = !report.configured
    ? ['not_configured', 'no API key configured: it is never asked']
    : keyRejected
      ? [
          'fail',
          `its API key was refused${keyRejected.statusCode ? ` (HTTP ${keyRejected.statusCode})` : ''} at ${keyRejected.at}`,
        ]
      : breaker.state === 'open'
        ? ['fail', `circuit breaker open until ${breaker.nextTrialAt}`]
        : breaker.state === 'half_open'
          ? ['warn', 'circuit breaker half open: the next request is a trial']
          : ['pass', undefined];
  return {
    feed: report.feed,
    name: report.name,
    status,
    configured: report.configured,
    breaker: breaker.state,
    ...(breaker.nextTrialAt ? { nextTrialAt: breaker.nextTrialAt } : {}),
    keyRejected: keyRejected !== undefined,
    ...(report.lastError ? { lastError: report.lastError } : {}),
    ...(reason === undefined ? {} : { reason }),
  };
}

function vaultHealth(vault: Vault | undefined): VaultHealth {
  if (!vault) return { status: 'pass', configured: false };
  const locked = vault.isLocked;
  return {
    status: locked ? 'fail' : 'pass',
    configured: true,
    locked,
    feeds: vault.keys(),
    ...(locked ? { reason: 'locked: lookups that need its keys are refused until vault.unlock(password)' } : {}),
  };
}

async function checkIntegration(
  entry: { name: string; check: () => Promise<IntegrationHealth> },
  clock: Clock,
  timeoutMs: number,
): Promise<IntegrationHealthCheck> {
  try {
    const health = await withinTime(
      Promise.resolve().then(entry.check),
      timeoutMs,
      clock,
      `integration "${entry.name}" health()`,
    );
    const healthy = health.healthy === true;
    return {
      name: entry.name,
      status: healthy ? 'pass' : 'fail',
      healthy,
      ...(typeof health.detail === 'string' ? { detail: health.detail } : {}),
    };
  } catch (error) {
    return {
      name: entry.name,
      status: 'fail',
      healthy: false,
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}
