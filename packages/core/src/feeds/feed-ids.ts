/** Identifiers of the feeds threatlib ships with. */
export const BUILTIN_FEED_IDS = ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'] as const;

/** Identifier of a built-in feed. */
export type BuiltinFeedId = (typeof BUILTIN_FEED_IDS)[number];

/**
 * What each built-in feed is, whether it needs an API key to be asked at all, where it is asked by default (its
 * `defaultEndpoint`), and the request header its key goes in (`@threatlib/server`'s feed proxy adds it server-side).
 */
export const BUILTIN_FEEDS: Readonly<
  Record<BuiltinFeedId, { name: string; requiresKey: boolean; defaultEndpoint: string; keyHeader: string }>
> = {
  feed_urls: {
    name: 'URLhaus (abuse.ch)',
    requiresKey: false,
    defaultEndpoint: 'https://urlhaus-api.abuse.ch/v1',
    keyHeader: 'auth-key',
  },
  feed_otx: {
    name: 'AlienVault OTX',
    requiresKey: true,
    defaultEndpoint: 'https://otx.alienvault.com/api/v1',
    keyHeader: 'x-otx-api-key',
  },
  feed_abuse: {
    name: 'AbuseIPDB',
    requiresKey: true,
    defaultEndpoint: 'https://api.abuseipdb.com/api/v2',
    keyHeader: 'key',
  },
  feed_cti: {
    name: 'CrowdSec CTI',
    requiresKey: true,
    defaultEndpoint: 'https://cti.api.crowdsec.net/v2',
    keyHeader: 'x-api-key',
  },
  feed_scan: {
    name: 'VirusTotal',
    requiresKey: true,
    defaultEndpoint: 'https://www.virustotal.com/api/v3',
    keyHeader: 'x-apikey',
  },
};

/** Whether `id` names a built-in feed. */
export function isBuiltinFeedId(id: unknown): id is BuiltinFeedId {
  return typeof id === 'string' && (BUILTIN_FEED_IDS as readonly string[]).includes(id);
}
