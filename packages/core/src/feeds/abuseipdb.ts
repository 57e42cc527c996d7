/*
 * AbuseIPDB API v2, `GET /check`.
 *
 * What this adapter relies on, and where it was confirmed:
 * - Endpoint, `Key` and `Accept: application/json` headers, `ipAddress` (URL-encoded because of IPv6 colons),
 *   `maxAgeInDays` (1..365, server default 30) and `verbose` as a flag without a value (`curl -d verbose`); the
 *   response fields, `verbose` adding `countryName` and `reports[]` ({reportedAt, comment, categories: number[],
 *   reporterId, reporterCountryCode, reporterCountryName}); `isWhitelisted` null when no whitelist lookup was done:
 *   https://docs.abuseipdb.com/#check-endpoint (the docs' CHECK section, also mirrored in PSAbuseIPDB on the
 *   PowerShell Gallery).
 * - Error body `{"errors":[{"detail","status","source"?}]}`, the 401 and 422 (`source.parameter: ipAddress`) details,
 *   and the 429 detail with `Retry-After`, `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`
 *   (epoch): https://docs.abuseipdb.com/#rate-limiting and streanger/abuseipdb-wrapper (its recorded error bodies).
 * - The report category table 1..23: https://www.abuseipdb.com/categories and AbuseIPDB/laravel
 *   `src/AbuseIPDBLaravel.php` (the vendor's own client).
 * - Field nullability (countryCode, usageType, domain, lastReportedAt may be null): AbuseIPDB/laravel
 *   `src/ResponseObjects/CheckResponse.php` and docs.rs `abuseipdb::Check`.
 */
import * as z from 'zod';
import type { Indicator, IndicatorType } from '../indicators/index.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from './feed.js';
import { answer, failure, failureFromResponse, parseBody } from './feed-response.js';
import { lenientNumber } from './lenient-number.js';

const FEED_ID = 'feed_abuse';
const SUPPORTED_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6'];
const DEFAULT_MAX_AGE_DAYS = 90;
const MALICIOUS_FROM = 75;
const SUSPICIOUS_FROM = 25;

/**
 * AbuseIPDB's report categories by number, with the names its category page gives them.
 *
 * @example
 * ```ts
 * ABUSEIPDB_CATEGORIES[18]; // 'Brute-Force'
 * ```
 */
export const ABUSEIPDB_CATEGORIES: Readonly<Record<number, string>> = {
  1: 'DNS Compromise',
  2: 'DNS Poisoning',
  3: 'Fraud Orders',
  4: 'DDoS Attack',
  5: 'FTP Brute-Force',
  6: 'Ping of Death',
  7: 'Phishing',
  8: 'Fraud VoIP',
  9: 'Open Proxy',
  10: 'Web Spam',
  11: 'Email Spam',
  12: 'Blog Spam',
  13: 'VPN IP',
  14: 'Port Scan',
  15: 'Hacking',
  16: 'SQL Injection',
  17: 'Spoofing',
  18: 'Brute-Force',
  19: 'Bad Web Bot',
  20: 'Exploited Host',
  21: 'Web App Attack',
  22: 'SSH',
  23: 'IoT Targeted',
};

const nullableText = z.string().nullish();

const reportSchema = z.looseObject({
  reportedAt: nullableText,
  comment: nullableText,
  categories: z.array(lenientNumber.pipe(z.number().int())).nullish(),
  reporterId: lenientNumber.nullish(),
  reporterCountryCode: nullableText,
  reporterCountryName: nullableText,
});

const checkSchema = z.looseObject({
  data: z.looseObject({
    ipAddress: z.string(),
    isPublic: z.boolean().nullish(),
    ipVersion: lenientNumber.nullish(),
    isWhitelisted: z.boolean().nullish(),
    abuseConfidenceScore: lenientNumber.pipe(z.number().min(0).max(100)),
    countryCode: nullableText,
    countryName: nullableText,
    usageType: nullableText,
    isp: nullableText,
    domain: nullableText,
    hostnames: z.array(z.string()).nullish(),
    isTor: z.boolean().nullish(),
    totalReports: lenientNumber.pipe(z.number().int().min(0)),
    numDistinctUsers: lenientNumber.pipe(z.number().int().min(0)).nullish(),
    lastReportedAt: nullableText,
    reports: z.array(reportSchema).nullish(),
  }),
});

const errorBodySchema = z.looseObject({
  errors: z.array(z.looseObject({ detail: z.string().nullish(), status: lenientNumber.nullish() })).min(1),
});

type CheckData = z.infer<typeof checkSchema>['data'];
type Report = z.infer<typeof reportSchema>;

interface Settings {
  maxAgeInDays: number;
  /** Report categories that count; undefined when every report counts. */
  categories: ReadonlySet<number> | undefined;
}

/**
 * The AbuseIPDB feed (`feed_abuse`): asks `GET /check` about an IPv4 or IPv6 address with its reports (`verbose`) and
 * rates it by AbuseIPDB's confidence of abuse: 75 % and above is malicious, 25 % and above suspicious, below that
 * clean (reports exist but AbuseIPDB does not trust them). An address nobody reported is `not_found`; a whitelisted
 * one is clean. Option `categories` (AbuseIPDB category numbers) makes only reports in one of them count; option
 * `maxAgeInDays` (1..365, default 90) sets how far back reports count.
 *
 * @example
 * ```ts
 * // Only brute-force (18) and SSH (22) reports count.
 * const client = new ThreatClient({
 *   sources: ['feed_abuse'],
 *   apiKeys: { feed_abuse: { key: process.env.ABUSEIPDB_KEY, categories: [18, 22] } },
 * });
 * ```
 */
export const abuseipdbFeed: Feed = {
  specificationVersion: 'v1',
  id: FEED_ID,
  name: 'AbuseIPDB',
  supportedTypes: SUPPORTED_TYPES,
  requiresKey: true,
  defaultEndpoint: 'https://api.abuseipdb.com/api/v2',
  lookup: lookupAbuseIpdb,
};

async function lookupAbuseIpdb(indicator: Indicator, context: FeedLookupContext): Promise<FeedLookupResult> {
  if (!SUPPORTED_TYPES.includes(indicator.type)) {
    return failure('unsupported', `AbuseIPDB checks IPv4 and IPv6 addresses, not ${indicator.type} indicators`);
  }
  if (!context.apiKey) return failure('not_configured', 'AbuseIPDB needs an API key (apiKeys.feed_abuse)');
  const settings = readSettings(context.options);
  if (typeof settings === 'string') return failure('error', settings);

  // `verbose` is a flag without a value, as the docs send it; URLSearchParams would add a `=`.
  const base = context.endpoint.replace(/\/+$/, '');
  const url = `${base}/check?ipAddress=${encodeURIComponent(indicator.value)}&maxAgeInDays=${settings.maxAgeInDays}&verbose`;
  const response = await context.http.request(url, {
    method: 'GET',
    headers: { Key: context.apiKey, Accept: 'application/json' },
    signal: context.signal,
  });

  const failed = failureFromResponse(FEED_ID, response);
  if (failed) return withVendorDetail(failed, vendorDetail(response.body));
  const parsed = parseBody(FEED_ID, response, checkSchema);
  if (!parsed.ok) return parsed.result;
  const raw = context.includeRaw ? JSON.parse(response.body) : undefined;
  return interpret(parsed.data.data, indicator, settings, raw);
}

function readSettings(options: Readonly<Record<string, unknown>>): Settings | string {
  const { maxAgeInDays = DEFAULT_MAX_AGE_DAYS, categories } = options;
  if (typeof maxAgeInDays !== 'number' || !Number.isInteger(maxAgeInDays) || maxAgeInDays < 1 || maxAgeInDays > 365) {
    return `AbuseIPDB option maxAgeInDays must be a whole number of days from 1 to 365, got ${JSON.stringify(maxAgeInDays)}`;
  }
  if (categories === undefined) return { maxAgeInDays, categories: undefined };
  if (!Array.isArray(categories) || !categories.every((c) => Number.isInteger(c))) {
    return `AbuseIPDB option categories must be a list of category numbers (1 DNS Compromise ... 23 IoT Targeted), got ${JSON.stringify(categories)}`;
  }
  // An empty list would make every report not count and every address read as clean; it is taken as "no filter".
  return { maxAgeInDays, categories: categories.length === 0 ? undefined : new Set(categories as number[]) };
}

function interpret(data: CheckData, indicator: Indicator, settings: Settings, raw: unknown): FeedLookupResult {
  const window = `in the last ${settings.maxAgeInDays} days`;
  const references = [`https://www.abuseipdb.com/check/${indicator.value}`];
  const tags = [...(data.isTor ? ['tor'] : [])];
  const torNote = data.isTor ? ['It is a Tor exit node.'] : [];
  const confidence = data.abuseConfidenceScore;
  const common = { references, ...(raw === undefined ? {} : { raw }) };

  if (data.isWhitelisted === true) {
    const discounted = data.totalReports > 0 ? ` (${plural(data.totalReports, 'report')} ${window} set aside)` : '';
    return answer({
      ...common,
      status: 'ok',
      verdict: 'clean',
      score: 0,
      tags: [...tags, 'whitelisted'],
      lastSeen: data.lastReportedAt ?? undefined,
      evidence: [`AbuseIPDB has it on its whitelist of known-good addresses${discounted}.`, ...torNote],
    });
  }

  if (data.totalReports === 0) {
    const why = data.isPublic === false ? ' (it is not a public address)' : '';
    return answer({
      ...common,
      status: 'not_found',
      verdict: 'unknown',
      tags,
      evidence: [`Nobody reported it to AbuseIPDB ${window}${why}.`, ...torNote],
    });
  }

  const reports = data.reports ?? undefined;
  let counted = reports ?? [];
  const evidence: string[] = [];
  if (settings.categories) {
    if (!reports) {
      return failure(
        'error',
        'AbuseIPDB sent no report details (verbose), so the configured categories filter could not be applied',
      );
    }
    const wanted = settings.categories;
    counted = reports.filter((report) => (report.categories ?? []).some((c) => wanted.has(c)));
    const list = describeCategories([...wanted]);
    if (counted.length === 0) {
      return answer({
        ...common,
        status: 'ok',
        verdict: 'clean',
        score: 0,
        tags,
        evidence: [`${plural(reports.length, 'report')} ${window}, none in categories [${list}].`, ...torNote],
      });
    }
    evidence.push(`${counted.length} of ${plural(reports.length, 'report')} ${window} are in categories [${list}].`);
  }

  const verdict = confidence >= MALICIOUS_FROM ? 'malicious' : confidence >= SUSPICIOUS_FROM ? 'suspicious' : 'clean';
  const users = data.numDistinctUsers == null ? '' : ` from ${plural(data.numDistinctUsers, 'user')}`;
  evidence.unshift(
    `AbuseIPDB's confidence of abuse is ${confidence}% (${plural(data.totalReports, 'report')}${users} ${window}).`,
  );
  const ranked = rankCategories(counted);
  if (ranked.length > 0) evidence.push(`Reported for ${ranked.slice(0, 3).join(', ')}.`);
  if (verdict === 'clean') {
    evidence.push(`Reports exist, but a confidence below ${SUSPICIOUS_FROM}% is too low to call it suspicious.`);
  }
  evidence.push(...torNote);

  return answer({
    ...common,
    status: 'ok',
    verdict,
    score: confidence / 100,
    categories: ranked,
    tags,
    lastSeen: (settings.categories ? latest(counted) : data.lastReportedAt) ?? undefined,
    evidence: evidence.slice(0, 4),
  });
}

/** Category names of the reports, the most reported first. */
function rankCategories(reports: readonly Report[]): string[] {
  const counts = new Map<number, number>();
  for (const report of reports) {
    for (const category of new Set(report.categories ?? [])) counts.set(category, (counts.get(category) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([category]) => categoryName(category));
}

function describeCategories(categories: readonly number[]): string {
  return [...categories]
    .sort((a, b) => a - b)
    .map((c) => `${categoryName(c)} (${c})`)
    .join(', ');
}

function categoryName(category: number): string {
  return ABUSEIPDB_CATEGORIES[category] ?? `category ${category}`;
}

function latest(reports: readonly Report[]): string | undefined {
  let best: { at: number; text: string } | undefined;
  for (const report of reports) {
    const at = report.reportedAt ? Date.parse(report.reportedAt) : Number.NaN;
    if (report.reportedAt && !Number.isNaN(at) && (!best || at > best.at)) best = { at, text: report.reportedAt };
  }
  return best?.text;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The first `detail` of AbuseIPDB's error body, when the body is one. */
function vendorDetail(body: string): string | undefined {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(body));
    const detail = parsed.success ? parsed.data.errors[0]?.detail?.trim() : undefined;
    return detail ? detail.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

function withVendorDetail(result: FeedLookupResult, detail: string | undefined): FeedLookupResult {
  if (!detail || !result.error) return result;
  const message = `${result.error.message}: AbuseIPDB says "${detail}"`;
  return { ...result, evidence: [message], error: { ...result.error, message } };
}
