import type { WindowStatus } from './feed-quota.js';
import type { FeedScheduler } from './feed-scheduler.js';

/** What is left of one feed's quota, as `client.quotas()` and `GET /quotas` report it. */
export interface FeedQuotaReport {
  feed: string;
  /** The quota in words (`4/minute, 500/day`). */
  limits: string;
  /** Each window's limit, what is left of it, and when it has room again. */
  windows: WindowStatus[];
  /**
   * True when the figures are the cluster's, shared by every client with the same `cluster.kvserver.keyPrefix`;
   * false for this client's own (no cluster, or its Redis unreachable: then this process's share).
   */
  shared: boolean;
  /** ISO 8601, while the feed has asked us to wait. */
  pausedUntil?: string;
}

/** What is left of the quota of each of `feeds`, the shared figures read from Redis first (bounded in time). */
export async function quotaReports(scheduler: FeedScheduler, feeds: readonly string[]): Promise<FeedQuotaReport[]> {
  await Promise.all(feeds.map((feed) => scheduler.gate(feed)?.refresh?.()));
  return feeds.map((feed) => {
    const status = scheduler.status(feed);
    return {
      feed,
      limits: status.limits,
      windows: status.quota,
      shared: scheduler.gate(feed)?.shared ?? false,
      ...(status.pausedUntil ? { pausedUntil: status.pausedUntil } : {}),
    };
  });
}
