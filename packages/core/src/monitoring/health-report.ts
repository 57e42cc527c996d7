import type { FeedStatus } from '../feeds/feed-result.js';
import type { BreakerState } from '../scheduler/circuit-breaker.js';

/**
 * The client's overall health, from {@link summariseHealth}:
 *
 * - `unhealthy`: a part the client was given cannot work until a person acts: the vault is locked (lookups needing
 *   its keys are refused until `vault.unlock`), or an integration reports unhealthy (or did not answer in time).
 * - `degraded`: the client answers, but some answers are missing or cost more: a feed's breaker is open or half
 *   open, a feed had its API key refused, or the cache failed its round trip (lookups go on uncached). A feed left
 *   without a key is not a failure: it is `not_configured`, and counts for nothing here (the configuration warns
 *   about it once, `MISSING_API_KEY`).
 * - `healthy`: every check passed.
 *
 * Feeds never make a client unhealthy: one whose feeds all fail still answers, with each failure in its results and
 * a monitoring alert sent, and a readiness probe that failed over a third party's outage would take the whole
 * service away from its callers.
 */
export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

/**
 * The outcome of one check: `warn` for a condition that is not a failure (a half-open breaker about to try again),
 * `fail` for a failed check.
 */
export type CheckStatus = 'pass' | 'warn' | 'fail';

/** One feed's health. */
export interface FeedHealth {
  feed: string;
  name: string;
  /** As {@link CheckStatus}, or `not_configured` for a feed that needs a key and has none (it is never asked). */
  status: CheckStatus | 'not_configured';
  /** Whether it can be asked: it needs no key, or has one. */
  configured: boolean;
  breaker: BreakerState;
  /** ISO 8601: when an open breaker lets the next trial through. */
  nextTrialAt?: string;
  /** Whether the feed's latest answer refused its API key (HTTP 401/403). */
  keyRejected: boolean;
  lastError?: { message: string; status: FeedStatus; at: string };
  /** Why the check did not pass. */
  reason?: string;
}

/** The cache's health: a real write, read and delete of a probe entry against the configured back end. */
export interface CacheHealth {
  status: CheckStatus;
  /** False when `caching.enabled` is off (the check then passes). */
  enabled: boolean;
  /** Back end: `memory`, `file`, `kvserver` or a third party's. */
  kind?: string;
  /** How long the round trip took, in ms. */
  roundTripMs?: number;
  reason?: string;
}

/** The vault's health. */
export interface VaultHealth {
  status: CheckStatus;
  /** Whether the client takes keys from a vault. */
  configured: boolean;
  locked?: boolean;
  /** Feeds whose keys the vault holds (ids only, never a key). */
  feeds?: string[];
  reason?: string;
}

/** One integration's health, as its own `health()` reported it (time-boxed). */
export interface IntegrationHealthCheck {
  name: string;
  status: CheckStatus;
  healthy: boolean;
  detail?: string;
}

/** What `client.health()` resolves to. */
export interface HealthReport {
  status: HealthStatus;
  /** ISO 8601, from the client's clock. */
  checkedAt: string;
  /** How long the checks took, in ms. */
  durationMs: number;
  /** One line per reason the status is not `healthy`. */
  reasons: string[];
  checks: {
    feeds: FeedHealth[];
    cache: CacheHealth;
    vault: VaultHealth;
    integrations: IntegrationHealthCheck[];
  };
}

/** The overall status of a set of checks, by the rules documented on {@link HealthStatus}. */
export function summariseHealth(checks: HealthReport['checks']): { status: HealthStatus; reasons: string[] } {
  const reasons: string[] = [];
  let unhealthy = false;
  if (checks.vault.status === 'fail') {
    unhealthy = true;
    reasons.push(`vault: ${checks.vault.reason ?? 'failed'}`);
  }
  for (const integration of checks.integrations) {
    if (integration.status === 'pass') continue;
    unhealthy = true;
    reasons.push(`integration ${integration.name}: ${integration.detail ?? 'unhealthy'}`);
  }
  for (const feed of checks.feeds) {
    if (feed.status !== 'pass' && feed.status !== 'not_configured')
      reasons.push(`${feed.feed}: ${feed.reason ?? feed.status}`);
  }
  if (checks.cache.status !== 'pass') reasons.push(`cache: ${checks.cache.reason ?? 'failed'}`);
  const status: HealthStatus = unhealthy ? 'unhealthy' : reasons.length > 0 ? 'degraded' : 'healthy';
  return { status, reasons };
}
