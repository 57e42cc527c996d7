import type { CampaignDetectedEvent } from '../campaigns/campaign.js';
import type { Correlation } from '../correlation/correlate.js';
import type { AuditEvent } from './audit-event.js';

/** The payload of `threatFound`: an indicator the client concluded is a threat. */
export interface ThreatFoundEvent {
  /** The normalised indicator. */
  indicator: string;
  /** How severe, 1 (lowest) to 10; equal to the correlation's risk score. */
  severity: number;
  /** Further detail, such as the correlation that concluded it. */
  [detail: string]: unknown;
}

/** The error passed to `feedError`: what went wrong with a feed, with context that never holds a secret. */
export interface FeedErrorEvent {
  /** What went wrong, in words. */
  message: string;
  /** Structured detail: HTTP status, indicator, attempt, error code. */
  context: Record<string, unknown>;
}

/** The payload of `clusterDegraded`: the cluster's Redis stopped answering. */
export interface ClusterDegradedEvent {
  /** Why, in words (never the password). */
  reason: string;
  /** The Redis server, `host:port`. */
  address: string;
  /** The peers each feed's quota is divided by while it lasts (this process keeps 1/peers of every window). */
  peers: number;
}

/** The payload of `clusterRestored`: the cluster's Redis answers again and sharing resumed. */
export interface ClusterRestoredEvent {
  reason: string;
  address: string;
  /** How long it was away, in ms. */
  downMs: number;
}

/** The payload of `quotaLow`: little is left of one window of a feed's quota. */
export interface QuotaLowEvent {
  feed: string;
  window: 'minute' | 'hour' | 'day';
  limit: number;
  remaining: number;
  /** ISO 8601: when the window has room again, when known. */
  resetsAt?: string;
  /** Whether the figures are the cluster's (shared by every client) or this client's own. */
  shared: boolean;
}

/**
 * Every event the client emits, with the arguments each handler receives.
 *
 * @example
 * ```ts
 * client.on('threatFound', (threat) => console.log(threat.indicator, threat.severity));
 * ```
 */
export interface ThreatEvents {
  /** A scout or correlation concluded that an indicator is a threat. */
  threatFound: [threat: ThreatFoundEvent];
  /**
   * A scout or correlation concluded, whatever the verdict (a storage integration keeps every one). Handlers run
   * synchronously on the scan's path: do no more than queue the work.
   */
  correlated: [correlation: Correlation];
  /** A feed failed (invalid key, network fault, bad response). */
  feedError: [error: FeedErrorEvent, feed: string];
  /** The vault locked itself or was locked. */
  vaultLocked: [];
  /** A feed request finished (whatever its outcome), after `duration` milliseconds. */
  requestComplete: [duration: number, feed: string];
  /** A feed told us to slow down, or our own quota for it is exhausted. */
  rateLimited: [feed: string];
  /** The cache dropped one or more entries to stay within its size. */
  cacheEvicted: [];
  /**
   * A security-relevant action: the vault unlocked, locked, rotated or saved, a key was set or used by a feed, an
   * option changed at run time. Emitted (and logged) only with `security.enableAuditLog`; never holds a secret.
   */
  audit: [event: AuditEvent];
  /**
   * Threats concluded within `campaigns.windowMs` formed a campaign (at least `campaigns.minIndicators` distinct
   * indicators sharing a malware family, a tag or a referenced pulse or report), or one grew.
   */
  campaignDetected: [campaign: CampaignDetectedEvent];
  /**
   * What is left of a feed's minute, hour or day window fell to `performance.rateLimit.quotaLowThreshold` of it or
   * below (a tenth by default). Once per window until it has more room again.
   */
  quotaLow: [quota: QuotaLowEvent];
  /**
   * The cluster's Redis stopped answering (`cluster.enabled`): each feed's quota is now kept locally at this process's
   * share, and lookups are no longer shared, until `clusterRestored`.
   */
  clusterDegraded: [event: ClusterDegradedEvent];
  /** The cluster's Redis answers again: quotas, lookups, cache and breakers are shared again. */
  clusterRestored: [event: ClusterRestoredEvent];
}

/** Name of an event the client emits. */
export type ThreatEventName = keyof ThreatEvents;

/** A handler for event `E`; it may be async. */
export type ThreatEventHandler<E extends ThreatEventName> = (...args: ThreatEvents[E]) => unknown;
