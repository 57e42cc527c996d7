/** The windows of a feed quota; any subset may be set. */
export interface QuotaWindows {
  requestsPerSecond?: number | undefined;
  burstSize?: number | undefined;
  requestsPerMinute?: number | undefined;
  requestsPerHour?: number | undefined;
  requestsPerDay?: number | undefined;
}

/**
 * The quota of each built-in feed on its free or community plan, as the vendors publish it. A paid plan is
 * configured with `performance.rateLimit.perFeed.<feed>`, which replaces these.
 *
 * - VirusTotal public API: 4 requests a minute, 500 a day.
 * - AbuseIPDB free plan: 1,000 `check` requests a day.
 * - CrowdSec CTI community key: 50 requests a day.
 * - AlienVault OTX: no published hard limit; 10,000 an hour keeps well inside what OTX tolerates.
 * - URLhaus: fair use, no published figure; 10 a second with a burst of 20 is polite.
 */
export const DEFAULT_FEED_QUOTAS: Readonly<Record<string, QuotaWindows>> = {
  feed_scan: { requestsPerMinute: 4, requestsPerDay: 500 },
  feed_abuse: { requestsPerDay: 1000 },
  feed_cti: { requestsPerDay: 50 },
  feed_otx: { requestsPerHour: 10_000 },
  feed_urls: { requestsPerSecond: 10, burstSize: 20 },
};
