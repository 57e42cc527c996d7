/** Identifiers of the feeds threatlib ships with. */
export const BUILTIN_FEED_IDS = ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'] as const;

/** Identifier of a built-in feed. */
export type BuiltinFeedId = (typeof BUILTIN_FEED_IDS)[number];

/** What each built-in feed is and whether it needs an API key to be asked at all. */
export const BUILTIN_FEEDS: Readonly<Record<BuiltinFeedId, { name: string; requiresKey: boolean }>> = {
  feed_urls: { name: 'URLhaus (abuse.ch)', requiresKey: false },
  feed_otx: { name: 'AlienVault OTX', requiresKey: true },
  feed_abuse: { name: 'AbuseIPDB', requiresKey: true },
  feed_cti: { name: 'CrowdSec CTI', requiresKey: true },
  feed_scan: { name: 'VirusTotal', requiresKey: true },
};

/** Whether `id` names a built-in feed. */
export function isBuiltinFeedId(id: unknown): id is BuiltinFeedId {
  return typeof id === 'string' && (BUILTIN_FEED_IDS as readonly string[]).includes(id);
}
