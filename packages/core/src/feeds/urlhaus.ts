// URLhaus API v1 (abuse.ch). What this adapter relies on, and where it was confirmed:
// - POST {base}/host/ (form `host`: "IPv4 address, hostname or domain name", so no IPv6), /url/ (form `url`),
//   /payload/ (form `md5_hash` or `sha256_hash`); `Auth-Key` header; answers carry `query_status`:
//   urlhaus-api.abuse.ch API page (as quoted by Get-UrlHausData and TundraSoft/tundra-connect's URLhaus docs),
//   MISP/misp-modules misp_modules/modules/expansion/urlhaus.py, intelowlproject/IntelOwl urlhaus.py.
// - query_status values ok, no_results, invalid_url, invalid_host, invalid_md5, invalid_sha256, http_post_expected,
//   http_get_expected, unknown_auth_key; an unknown key is answered HTTP 403 + `unknown_auth_key`, no key HTTP 401:
//   TundraSoft/tundra-connect urlhaus schemas and errors.md (observed against the live API).
// - Numbers as strings (`url_count`, `file_size`, `id`, `takedown_time_seconds`), `tags: null`, `signature: null`,
//   `virustotal: null`, dates "YYYY-MM-DD HH:MM:SS UTC" (payload dates without "UTC", payload URL dates date-only),
//   `blacklists` {spamhaus_dbl, surbl} with values such as "not listed", "listed", "abused_legit_malware",
//   "unknown_return_code": ibmresilient/resilient-community-apps fn_urlhaus/README.md (recorded answers),
//   pirxthepilot/wtfis tests/test_data/urlhaus_*.json and wtfis/models/urlhaus.py,
//   fortinet-fortisoar/connector-urlhaus docs (field lists, `last_online`).
import * as z from 'zod';
import type { HttpResponse } from '../http/http-client.js';
import type { Indicator, IndicatorType } from '../indicators/index.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from './feed.js';
import { answer, failure, failureFromResponse, parseBody } from './feed-response.js';
import { lenientNumber } from './lenient-number.js';

const FEED_ID = 'feed_urls';
const FEED_NAME = 'URLhaus (abuse.ch)';
const SITE = 'https://urlhaus.abuse.ch';
/** How many per-URL report links a result carries at most, besides the host or payload page. */
const MAX_URL_REFERENCES = 10;

const text = z.string().nullish();
const tags = z.array(z.string()).nullish();

const blacklistsSchema = z.looseObject({ spamhaus_dbl: text, surbl: text }).nullish();

const envelopeSchema = z.looseObject({ query_status: z.string() });

const hostUrlSchema = z.looseObject({
  url: z.string(),
  url_status: text,
  urlhaus_reference: text,
  date_added: text,
  threat: text,
  tags,
});

const hostSchema = z.looseObject({
  query_status: z.literal('ok'),
  urlhaus_reference: text,
  host: text,
  firstseen: text,
  url_count: lenientNumber.nullish(),
  blacklists: blacklistsSchema,
  urls: z.array(hostUrlSchema).nullish(),
});

const urlSchema = z.looseObject({
  query_status: z.literal('ok'),
  urlhaus_reference: text,
  url: text,
  url_status: z.string(),
  date_added: text,
  last_online: text,
  threat: text,
  blacklists: blacklistsSchema,
  tags,
  payloads: z.array(z.looseObject({ signature: text, file_type: text })).nullish(),
});

const payloadSchema = z.looseObject({
  query_status: z.literal('ok'),
  md5_hash: text,
  sha256_hash: text,
  file_type: text,
  file_size: lenientNumber.nullish(),
  signature: text,
  firstseen: text,
  lastseen: text,
  url_count: lenientNumber.nullish(),
  virustotal: z.looseObject({ result: text, percent: text, link: text }).nullish(),
  urls: z.array(z.looseObject({ url: text, url_status: text, urlhaus_reference: text })).nullish(),
});

type HostAnswer = z.infer<typeof hostSchema>;
type UrlAnswer = z.infer<typeof urlSchema>;
type PayloadAnswer = z.infer<typeof payloadSchema>;

/** Which endpoint answers which indicator type, and the form field that carries the indicator. */
const QUERIES: Partial<Record<IndicatorType, { path: string; field: string }>> = {
  ipv4: { path: 'host/', field: 'host' },
  domain: { path: 'host/', field: 'host' },
  url: { path: 'url/', field: 'url' },
  md5: { path: 'payload/', field: 'md5_hash' },
  sha256: { path: 'payload/', field: 'sha256_hash' },
};

// What the error values of `query_status` mean, for the evidence line; anything else is passed through as itself.
const QUERY_ERRORS: Readonly<Record<string, string>> = {
  invalid_host: 'it is not a host URLhaus accepts',
  invalid_url: 'it is not a URL URLhaus accepts',
  invalid_md5: 'it is not an MD5 hash URLhaus accepts',
  invalid_sha256: 'it is not a SHA-256 hash URLhaus accepts',
  http_post_expected: 'the request was not an HTTP POST',
  http_get_expected: 'the request was not an HTTP GET',
};

/**
 * The URLhaus feed (abuse.ch): malware distribution URLs, the hosts serving them and the payloads they served.
 * Domains and IPv4 addresses are asked at `/host/`, URLs at `/url/`, MD5 and SHA-256 hashes at `/payload/`.
 * URLhaus only lists what is bad, so it never answers `clean`: an unknown indicator is `not_found`.
 *
 * @example
 * ```ts
 * client.registerFeed(urlhausFeed);
 * // apiKeys: { feed_urls: { key: process.env.ABUSECH_AUTH_KEY } } sends it as the Auth-Key header
 * ```
 */
export const urlhausFeed: Feed = {
  specificationVersion: 'v1',
  id: FEED_ID,
  name: FEED_NAME,
  supportedTypes: ['ipv4', 'domain', 'url', 'md5', 'sha256'],
  requiresKey: false,
  defaultEndpoint: 'https://urlhaus-api.abuse.ch/v1',
  async lookup(indicator: Indicator, context: FeedLookupContext): Promise<FeedLookupResult> {
    const query = QUERIES[indicator.type];
    if (!query) {
      return failure(
        'unsupported',
        `${FEED_NAME} cannot look up ${indicator.type} indicators (it answers domains, IPv4 addresses, URLs, MD5 and SHA-256 hashes)`,
      );
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    };
    if (context.apiKey) headers['auth-key'] = context.apiKey;
    const response = await context.http.request(`${context.endpoint.replace(/\/+$/, '')}/${query.path}`, {
      method: 'POST',
      headers,
      body: new URLSearchParams({ [query.field]: indicator.value }).toString(),
      signal: context.signal,
    });

    const refused = refusal(response);
    if (refused) return refused;
    const raw = context.includeRaw ? parseJson(response.body) : undefined;
    if (query.path === 'host/') {
      const parsed = parseBody(FEED_ID, response, hostSchema);
      return parsed.ok ? hostAnswer(parsed.data, indicator.value, raw) : parsed.result;
    }
    if (query.path === 'url/') {
      const parsed = parseBody(FEED_ID, response, urlSchema);
      return parsed.ok ? urlAnswer(parsed.data, raw) : parsed.result;
    }
    const parsed = parseBody(FEED_ID, response, payloadSchema);
    return parsed.ok ? payloadAnswer(parsed.data, indicator.value, raw) : parsed.result;
  },
};

/**
 * Everything that is not an `ok` answer: rate limits and server errors whatever the body says, then the
 * `query_status` URLhaus put in the body (it reports refusals there, with 200 or with a 4xx), then bare HTTP errors.
 */
function refusal(response: HttpResponse): FeedLookupResult | undefined {
  if (response.status === 429 || response.status >= 500) return failureFromResponse(FEED_ID, response);
  const envelope = envelopeSchema.safeParse(parseJson(response.body));
  const status = envelope.success ? envelope.data.query_status : undefined;
  const ok = response.status >= 200 && response.status < 300;
  if (status === 'unknown_auth_key') {
    return failure(
      'auth_error',
      `${FEED_NAME} refused the Auth-Key: query_status unknown_auth_key (HTTP ${response.status})`,
      { statusCode: response.status },
    );
  }
  if (status === 'no_results' && ok) {
    return answer({
      status: 'not_found',
      verdict: 'unknown',
      evidence: [`${FEED_NAME} has no record of it (query_status no_results); it only lists known malware sources.`],
    });
  }
  if (status !== undefined && status !== 'ok') {
    const meaning = QUERY_ERRORS[status];
    return failure(
      'error',
      `${FEED_NAME} refused the query: query_status ${status}${meaning ? ` (${meaning})` : ''} (HTTP ${response.status})`,
      { statusCode: response.status },
    );
  }
  return failureFromResponse(FEED_ID, response);
}

function hostAnswer(data: HostAnswer, host: string, raw: unknown): FeedLookupResult {
  const urls = data.urls ?? [];
  const total = data.url_count ?? urls.length;
  const online = urls.filter((entry) => entry.url_status === 'online').length;
  // A host answer has no last-seen date of its own; the newest URL URLhaus added for it is the latest sighting.
  const newest = latest(urls.map((entry) => entry.date_added));
  const evidence =
    online > 0
      ? [
          `${FEED_NAME} lists ${plural(total, 'malware URL')} on this host; ${online} ${online === 1 ? 'is' : 'are'} online now.`,
        ]
      : [
          `${FEED_NAME} lists ${plural(total, 'malware URL')} on this host, none online now${newest ? `; the newest was added ${newest}` : ''}.`,
        ];
  const listings = blacklistEvidence(data.blacklists);
  if (listings) evidence.push(listings);
  return answer({
    status: 'ok',
    verdict: 'malicious',
    score: online > 0 ? 1 : 0.7,
    categories: urls.flatMap((entry) => (entry.threat ? [entry.threat] : [])),
    tags: urls.flatMap((entry) => entry.tags ?? []),
    firstSeen: data.firstseen ?? undefined,
    lastSeen: newest,
    references: [
      data.urlhaus_reference ?? `${SITE}/host/${host}/`,
      ...urlReferences(urls.map((entry) => entry.urlhaus_reference)),
    ],
    evidence,
    raw,
  });
}

function urlAnswer(data: UrlAnswer, raw: unknown): FeedLookupResult {
  const online = data.url_status === 'online';
  const threat = data.threat ? ` (${data.threat})` : '';
  const lastSeen = data.last_online ?? undefined;
  const evidence = online
    ? [`${FEED_NAME} lists this URL as a malware source${threat} and it is online now.`]
    : [
        `${FEED_NAME} lists this URL as a malware source${threat}; ${data.url_status === 'offline' ? 'it is offline now' : `its status is ${data.url_status}`}${lastSeen ? `, last seen online ${lastSeen}` : ''}.`,
      ];
  const families = (data.payloads ?? []).flatMap((payload) => (payload.signature ? [payload.signature] : []));
  if (families.length > 0) evidence.push(`It served payloads identified as ${[...new Set(families)].join(', ')}.`);
  const listings = blacklistEvidence(data.blacklists);
  if (listings) evidence.push(listings);
  return answer({
    status: 'ok',
    verdict: 'malicious',
    score: online ? 1 : 0.7,
    categories: data.threat ? [data.threat] : [],
    tags: data.tags ?? [],
    malwareFamilies: families,
    firstSeen: data.date_added ?? undefined,
    lastSeen,
    references: data.urlhaus_reference ? [data.urlhaus_reference] : [],
    evidence,
    raw,
  });
}

function payloadAnswer(data: PayloadAnswer, hash: string, raw: unknown): FeedLookupResult {
  const urls = data.urls ?? [];
  const count = data.url_count ?? urls.length;
  const family = data.signature ? ` identified as ${data.signature}` : '';
  const fileType = data.file_type ? `${data.file_type} ` : '';
  const evidence = [
    `${FEED_NAME} knows this ${fileType}file as a malware payload${family}, served from ${plural(count, 'URL')}.`,
  ];
  if (data.virustotal?.result)
    evidence.push(`VirusTotal, as reported by URLhaus: ${data.virustotal.result} engines detect it.`);
  const sha256 = data.sha256_hash ?? hash;
  return answer({
    status: 'ok',
    verdict: 'malicious',
    score: 1,
    malwareFamilies: data.signature ? [data.signature] : [],
    firstSeen: data.firstseen ?? undefined,
    lastSeen: data.lastseen ?? undefined,
    references: [
      `${SITE}/browse.php?search=${encodeURIComponent(sha256)}`,
      ...urlReferences(urls.map((entry) => entry.urlhaus_reference)),
    ],
    evidence,
    raw,
  });
}

/** A sentence naming the third-party blocklists URLhaus says the host is on, if any. */
function blacklistEvidence(blacklists: { spamhaus_dbl?: string | null; surbl?: string | null } | null | undefined) {
  const listed: string[] = [];
  // "not listed" and "unknown_return_code" (a failed DNS lookup on URLhaus's side) are not listings.
  const isListed = (value: string | null | undefined) =>
    !!value && value !== 'not listed' && !value.includes('unknown');
  if (isListed(blacklists?.spamhaus_dbl)) listed.push(`Spamhaus DBL (${blacklists?.spamhaus_dbl})`);
  if (isListed(blacklists?.surbl)) listed.push('SURBL');
  return listed.length > 0 ? `It is also listed on ${listed.join(' and ')}.` : undefined;
}

function urlReferences(links: (string | null | undefined)[]): string[] {
  return [...new Set(links.filter((link): link is string => !!link))].slice(0, MAX_URL_REFERENCES);
}

/** The most recent of URLhaus's dates, which sort as text ("YYYY-MM-DD HH:MM:SS UTC"). */
function latest(dates: (string | null | undefined)[]): string | undefined {
  return dates
    .filter((date): date is string => !!date)
    .sort()
    .at(-1);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
