// VirusTotal API v3 adapter. What it relies on, and where it was confirmed:
// - https://docs.virustotal.com/reference/errors: every failure is `{"error": {"code", "message"}}`; the codes and
//   their statuses (400 BadRequestError/InvalidArgumentError/NotAvailableYet, 401 AuthenticationRequiredError/
//   UserNotActiveError/WrongCredentialsError, 403 ForbiddenError, 404 NotFoundError, 429 QuotaExceededError/
//   TooManyRequestsError, 503 TransientError, 504 DeadlineExceededError).
// - https://docs.virustotal.com/reference/url (URL identifiers): `/urls/{id}` accepts the URL's unpadded base64url
//   encoding (RFC 4648 section 3.2) and canonicalises it server-side, so the URL is sent as threatlib normalised
//   it, not canonicalised here; the object's own `id` is the SHA-256 of the canonical URL.
// - VirusTotal/vt-py `vt/client.py`: `url_id(url) = urlsafe_b64encode(url.encode()).decode().strip("=")`, the
//   `X-Apikey` header and the `/api/v3` prefix.
// - https://docs.virustotal.com/reference/domains-1, /ip-object, /url-object, /files, /analyses-object and
//   /popular_threat_classification: attribute names and types. Dates are epoch seconds; an engine's `result` can
//   be null; file analyses add `confirmed-timeout`, `failure` and `type-unsupported`; a file's `creation_date` is
//   its (forgeable) compile time, a domain's is its WHOIS registration date.
// - The official VirusTotal MCP server's `get_ip_report` tool: `/ip_addresses/{ip}` takes IPv4 and IPv6.
import * as z from 'zod';
import type { HttpResponse } from '../http/http-client.js';
import type { Indicator, IndicatorType } from '../indicators/index.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from './feed.js';
import { answer, failure, failureFromResponse, parseBody } from './feed-response.js';
import type { FeedVerdict } from './feed-result.js';

const FEED_ID = 'feed_scan';
const GUI = 'https://www.virustotal.com/gui';

/** Engines flagging an indicator malicious from which VirusTotal's answer counts as malicious. */
const MALICIOUS_ENGINES = 3;
/** Weighted detections (malicious 1, suspicious 0.5) at which the score reaches 1. */
const FULL_SCORE_DETECTIONS = 5;
const MAX_FAMILIES = 5;

interface Target {
  /** API collection the object lives in. */
  collection: 'domains' | 'ip_addresses' | 'urls' | 'files';
  /** Identifier sent in the path. */
  id: string;
  /** `data.type` VirusTotal answers with. */
  objectType: 'domain' | 'ip_address' | 'url' | 'file';
  /** Path segment of the object's page on the VirusTotal web site. */
  page: 'domain' | 'ip-address' | 'url' | 'file';
  /** How evidence names the kind of object. */
  noun: string;
}

// Numbers are integers in VirusTotal's JSON; strings of digits are accepted too so that a proxy or a re-serialised
// body does not turn a real answer into an error. Null means "not given", as VirusTotal uses it.
const optionalNumber = z
  .preprocess(
    (value) =>
      value === null
        ? undefined
        : typeof value === 'string' && /^-?\d+(?:\.\d+)?$/.test(value.trim())
          ? Number(value)
          : value,
    z.number().finite().optional(),
  )
  .optional();

const optionalText = z.string().nullish();

const statsSchema = z.looseObject({
  harmless: optionalNumber,
  malicious: optionalNumber,
  suspicious: optionalNumber,
  undetected: optionalNumber,
  timeout: optionalNumber,
  'confirmed-timeout': optionalNumber,
  failure: optionalNumber,
  'type-unsupported': optionalNumber,
});

const engineResultSchema = z.looseObject({
  category: optionalText,
  result: optionalText,
  engine_name: optionalText,
  method: optionalText,
});

const threatTokenSchema = z.looseObject({ value: z.string(), count: optionalNumber });

const attributesSchema = z.looseObject({
  last_analysis_stats: statsSchema.nullish(),
  last_analysis_results: z.record(z.string(), engineResultSchema).nullish(),
  last_analysis_date: optionalNumber,
  first_submission_date: optionalNumber,
  creation_date: optionalNumber,
  reputation: optionalNumber,
  total_votes: z.looseObject({ harmless: optionalNumber, malicious: optionalNumber }).nullish(),
  categories: z.record(z.string(), z.string().nullable()).nullish(),
  tags: z.array(z.string()).nullish(),
  popular_threat_classification: z
    .looseObject({
      suggested_threat_label: optionalText,
      popular_threat_name: z.array(threatTokenSchema).nullish(),
      popular_threat_category: z.array(threatTokenSchema).nullish(),
    })
    .nullish(),
  meaningful_name: optionalText,
});

const objectSchema = z.looseObject({
  data: z.looseObject({
    id: z.string(),
    type: z.string(),
    attributes: attributesSchema,
  }),
});

const errorSchema = z.looseObject({
  error: z.looseObject({ code: z.string(), message: z.string().nullish() }),
});

type Attributes = z.infer<typeof attributesSchema>;

/**
 * VirusTotal (API v3): what dozens of antivirus engines and URL scanners last concluded about a domain, IP address,
 * URL or file hash, with community reputation and threat classification. Needs an API key.
 *
 * @example
 * ```ts
 * const client = createThreatClient({ sources: ['feed_scan'], apiKeys: { feed_scan: { key: process.env.VT_KEY } } });
 * ```
 */
export const virustotalFeed: Feed = {
  specificationVersion: 'v1',
  id: FEED_ID,
  name: 'VirusTotal',
  supportedTypes: ['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256'],
  requiresKey: true,
  defaultEndpoint: 'https://www.virustotal.com/api/v3',
  lookup,
};

async function lookup(indicator: Indicator, context: FeedLookupContext): Promise<FeedLookupResult> {
  const target = targetFor(indicator);
  if (target === undefined) {
    return failure('unsupported', `VirusTotal does not look up ${indicator.type} indicators`);
  }
  const key = context.apiKey;
  if (!key) return failure('not_configured', 'VirusTotal needs an API key (apiKeys.feed_scan)');

  const url = `${context.endpoint.replace(/\/+$/, '')}/${target.collection}/${pathSegment(target.id)}`;
  const response = await context.http.request(url, {
    method: 'GET',
    headers: { 'x-apikey': key, accept: 'application/json' },
    signal: context.signal,
  });
  const raw = context.includeRaw ? parseJson(response.body) : undefined;

  if (response.status !== 200) return failed(response, target, key, raw);
  const parsed = parseBody(FEED_ID, response, objectSchema);
  if (!parsed.ok) return parsed.result;
  const { data } = parsed.data;
  if (data.type !== target.objectType) {
    return failure('error', `VirusTotal answered with a ${data.type} object to a ${target.objectType} lookup`, {
      statusCode: response.status,
      ...(raw === undefined ? {} : { raw }),
    });
  }
  return interpret(data.id, data.attributes, target, indicator.type, raw);
}

/** Where VirusTotal keeps `indicator`, or undefined for a type it has no objects for (email addresses). */
function targetFor(indicator: Indicator): Target | undefined {
  switch (indicator.type) {
    case 'domain':
      return { collection: 'domains', id: indicator.value, objectType: 'domain', page: 'domain', noun: 'domain' };
    case 'ipv4':
    case 'ipv6':
      return {
        collection: 'ip_addresses',
        id: indicator.value,
        objectType: 'ip_address',
        page: 'ip-address',
        noun: 'IP address',
      };
    case 'url':
      return {
        collection: 'urls',
        id: Buffer.from(indicator.value, 'utf8').toString('base64url'),
        objectType: 'url',
        page: 'url',
        noun: 'URL',
      };
    case 'md5':
    case 'sha1':
    case 'sha256':
      return { collection: 'files', id: indicator.value, objectType: 'file', page: 'file', noun: 'file' };
    case 'email':
      return undefined;
  }
}

/** Percent-encodes a path segment, keeping the colons of IPv6 addresses as the official clients send them. */
function pathSegment(id: string): string {
  return encodeURIComponent(id).replace(/%3A/gi, ':');
}

/** The result of any answer but 200: a documented NotFoundError, or a failure naming VirusTotal's error code. */
function failed(response: HttpResponse, target: Target, key: string, raw: unknown): FeedLookupResult {
  const vtError = errorSchema.safeParse(parseJson(response.body));
  const code = vtError.success ? vtError.data.error.code : undefined;
  if (response.status === 404 && code === 'NotFoundError') {
    return answer({
      status: 'not_found',
      verdict: 'unknown',
      evidence: [`VirusTotal has no record of this ${target.noun}`],
      references: [`${GUI}/${target.page}/${target.id}`],
      ...(raw === undefined ? {} : { raw }),
    });
  }
  const base =
    failureFromResponse(FEED_ID, response) ?? failure('error', `${FEED_ID} answered HTTP ${response.status}`);
  const message = vtError.success ? vendorMessage(vtError.data.error.code, vtError.data.error.message, key) : '';
  const detail = base.error ?? { message: base.evidence[0] ?? '' };
  // A 404 without NotFoundError is not VirusTotal's answer about the indicator (a wrong endpoint, a proxy page).
  const reason =
    response.status === 404 && code === undefined
      ? `${detail.message}; the body is not VirusTotal's NotFoundError, so the endpoint may be wrong`
      : `${detail.message}${message}`;
  return failure(base.status as Parameters<typeof failure>[0], reason, {
    ...(detail.statusCode === undefined ? {} : { statusCode: detail.statusCode }),
    ...(detail.retryAfterMs === undefined ? {} : { retryAfterMs: detail.retryAfterMs }),
    ...(raw === undefined ? {} : { raw }),
  });
}

/** VirusTotal's own error code and message, shortened, with the key removed in case a message ever echoed it. */
function vendorMessage(code: string, message: string | null | undefined, key: string): string {
  const text = (message ?? '').split(key).join('[key]').slice(0, 200);
  return `: ${code}${text ? ` (${text})` : ''}`;
}

interface Tally {
  malicious: number;
  suspicious: number;
  harmless: number;
  undetected: number;
}

function interpret(
  id: string,
  attributes: Attributes,
  target: Target,
  type: IndicatorType,
  raw: unknown,
): FeedLookupResult {
  const tally = tallyOf(attributes);
  const analysed = tally.malicious + tally.suspicious + tally.harmless + tally.undetected;
  const verdict: FeedVerdict =
    tally.malicious >= MALICIOUS_ENGINES
      ? 'malicious'
      : tally.malicious > 0 || tally.suspicious > 0
        ? 'suspicious'
        : analysed > 0
          ? 'clean'
          : 'unknown';

  let score = Math.min(1, (tally.malicious + 0.5 * tally.suspicious) / FULL_SCORE_DETECTIONS);
  const evidence = [detectionSentence(tally, analysed)];
  const labels = labelSentence(attributes, target);
  if (labels) evidence.push(labels);
  const community = communitySentence(attributes, score > 0);
  if (community.halves) score /= 2;
  if (community.sentence) evidence.push(community.sentence);

  const classification = attributes.popular_threat_classification;
  const categories = [
    ...Object.values(attributes.categories ?? {}).flatMap((label) => (label ? [label.trim().toLowerCase()] : [])),
    ...(classification?.popular_threat_category ?? []).map((token) => token.value.trim().toLowerCase()),
  ];
  const firstSeen =
    attributes.first_submission_date ?? (type === 'domain' ? attributes.creation_date : undefined) ?? undefined;

  return answer({
    status: 'ok',
    verdict,
    score,
    categories,
    tags: attributes.tags ?? [],
    malwareFamilies: malwareFamilies(attributes),
    firstSeen: isoFromEpoch(firstSeen),
    lastSeen: isoFromEpoch(attributes.last_analysis_date),
    references: [`${GUI}/${target.page}/${id}`],
    evidence,
    ...(raw === undefined ? {} : { raw }),
  });
}

/** Engine counts from `last_analysis_stats`, or counted from the per-engine results when the summary is missing. */
function tallyOf(attributes: Attributes): Tally {
  const stats = attributes.last_analysis_stats;
  if (stats) {
    return {
      malicious: stats.malicious ?? 0,
      suspicious: stats.suspicious ?? 0,
      harmless: stats.harmless ?? 0,
      undetected: stats.undetected ?? 0,
    };
  }
  const tally: Tally = { malicious: 0, suspicious: 0, harmless: 0, undetected: 0 };
  for (const engine of Object.values(attributes.last_analysis_results ?? {})) {
    const category = engine.category ?? '';
    if (category in tally) tally[category as keyof Tally] += 1;
  }
  return tally;
}

function detectionSentence(tally: Tally, analysed: number): string {
  // Engines that timed out, failed or do not handle the file type gave no opinion and are not counted.
  if (analysed === 0) return 'VirusTotal knows it but has no engine verdicts for it yet';
  if (tally.malicious === 0 && tally.suspicious === 0) {
    return `None of ${analysed} engines flags it (${tally.harmless} harmless, ${tally.undetected} undetected)`;
  }
  const suspicious = tally.suspicious > 0 ? `, ${tally.suspicious} suspicious` : '';
  return `${tally.malicious} of ${analysed} engines flag it malicious${suspicious}`;
}

/** VirusTotal's threat label for files, or the labels engines gave a network object, most frequent first. */
function labelSentence(attributes: Attributes, target: Target): string | undefined {
  const label = attributes.popular_threat_classification?.suggested_threat_label;
  if (label) return `VirusTotal's suggested threat label: ${label}`;
  if (target.collection === 'files') return undefined;
  const counts = new Map<string, number>();
  for (const engine of Object.values(attributes.last_analysis_results ?? {})) {
    if (engine.category !== 'malicious' && engine.category !== 'suspicious') continue;
    const result = engine.result?.trim().toLowerCase();
    if (result) counts.set(result, (counts.get(result) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  const top = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3);
  return `Engines label it ${top.map(([name, count]) => `${name} (${count})`).join(', ')}`;
}

/**
 * The community's say: VirusTotal's reputation score and users' votes. A positive reputation with mostly harmless
 * votes halves the score, since people who looked at it disagree with the engines that flag it.
 */
function communitySentence(attributes: Attributes, scored: boolean): { sentence?: string; halves: boolean } {
  const reputation = attributes.reputation ?? 0;
  const harmless = attributes.total_votes?.harmless ?? 0;
  const malicious = attributes.total_votes?.malicious ?? 0;
  if (reputation === 0 && harmless === 0 && malicious === 0) return { halves: false };
  const votes = `votes: ${harmless} harmless, ${malicious} malicious`;
  const signed = reputation > 0 ? `+${reputation}` : `${reputation}`;
  const halves = reputation > 0 && harmless > malicious;
  const sentence = `Community reputation ${signed} (${votes})${halves && scored ? ', so the score is halved' : ''}`;
  return { sentence, halves };
}

// Words in detection names that say what kind of thing was found, not which family: they never name a family.
const GENERIC_DETECTION_WORDS = new Set(
  (
    'adware agent application backdoor banker behaves bitcoinminer casdet clean cloud coinminer confidence crypt ' +
    'cryptor detected downloader dropper exploit file fraud gen generic generickd genpack graftor grayware hacktool ' +
    'heur heuristic high html injector kryptik like malicious malpack malware malware1 miner msil ml packed packer ' +
    'phishing program ransom ransomware reputation riskware score script site spam spyware static stealer suspicious ' +
    'susgen tool trojan trojanspy unsafe unwanted variant virus wacatac worm'
  ).split(' '),
);

/**
 * Malware families: VirusTotal's `popular_threat_name` (tokens counted across engines, most frequent first), or,
 * when it has none, the same count made here over the malicious and suspicious engines' detection names.
 */
function malwareFamilies(attributes: Attributes): string[] {
  const names = attributes.popular_threat_classification?.popular_threat_name;
  if (names && names.length > 0) {
    return [...names]
      .sort((a, b) => (b.count ?? 0) - (a.count ?? 0))
      .map((token) => token.value.trim().toLowerCase())
      .slice(0, MAX_FAMILIES);
  }
  const engines = new Map<string, number>();
  for (const engine of Object.values(attributes.last_analysis_results ?? {})) {
    if (engine.category !== 'malicious' && engine.category !== 'suspicious') continue;
    const tokens = new Set(
      (engine.result ?? '')
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((token) => token.length >= 4 && /^[a-z]+$/.test(token) && !GENERIC_DETECTION_WORDS.has(token)),
    );
    for (const token of tokens) engines.set(token, (engines.get(token) ?? 0) + 1);
  }
  // One engine's wording is not a family; two vendors naming the same token usually is.
  return [...engines]
    .filter(([, count]) => count >= 2)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_FAMILIES)
    .map(([token]) => token);
}

function isoFromEpoch(seconds: number | undefined): string | undefined {
  if (seconds === undefined || seconds <= 0) return undefined;
  return new Date(seconds * 1000).toISOString();
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
