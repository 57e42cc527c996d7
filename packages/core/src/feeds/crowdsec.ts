/*
 * CrowdSec CTI API v2, `GET /smoke/{ip}`.
 *
 * What this adapter relies on, and where it was confirmed:
 * - Base URL, `x-api-key` header, `GET /smoke/{ip}` for IPv4 and IPv6: docs.crowdsec.net "CTI API" pages
 *   (crowdsecurity/crowdsec-docs unversioned/cti_api/enrichment_api.md, api_introduction.md) and the vendor's Go
 *   client crowdsecurity/crowdsec pkg/cticlient/client.go.
 * - Fields and their meaning: `reputation` (malicious, suspicious, known, safe, benign, unknown), `confidence`,
 *   `background_noise` (high, medium, low, none) and `background_noise_score` (0..10), `behaviors`,
 *   `classifications.{classifications,false_positives}` ("any IP with false_positives tags shouldn't be considered as
 *   malicious"), `attack_details`, `scores.{overall,last_day,last_week,last_month}` (0..5), `history`, `references`
 *   (blocklists): crowdsec-docs unversioned/cti_api/taxonomy/cti_fields.md, scores.md, benign.mdx,
 *   false_positives.mdx. Nullable fields (history dates, background_noise_score, location): cticlient/types.go;
 *   null score parts seen live: Ozark-Connect/NetworkOptimizer PR #437.
 * - 404 `{"message": "IP address information not found"}`, 403 for a bad key, 429 on quota (no retry header):
 *   cticlient/client.go and client_test.go, OpenCTI-Platform/connectors internal-enrichment/crowdsec client.py.
 *   The two 429 bodies, `{"message": "Too Many Requests"}` (burst) and `{"message": "Limit Exceeded"}` (quota used):
 *   Ozark-Connect/NetworkOptimizer src/NetworkOptimizer.Threats/CrowdSec/CrowdSecClient.cs.
 * - Page for a person: https://app.crowdsec.net/cti/<ip> (crowdsec-docs faq.md, IntelOwl's crowdsec analyzer).
 */
import * as z from 'zod';
import type { HttpResponse } from '../http/http-client.js';
import type { Indicator, IndicatorType } from '../indicators/index.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from './feed.js';
import { answer, failure, failureFromResponse, parseBody } from './feed-response.js';
import type { FeedVerdict } from './feed-result.js';
import { lenientNumber } from './lenient-number.js';

const FEED_ID = 'feed_cti';
const SUPPORTED_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6'];
/** `known` means CrowdSec has not decided; an overall score this high is still worth calling suspicious. */
const KNOWN_SUSPICIOUS_FROM = 3;

const text = z.string().nullish();

const labelledSchema = z.looseObject({ name: z.string(), label: text, description: text });
// The docs' example once showed `classifications.classifications` as a single object; real answers send a list.
const labelledList = z.union([z.array(labelledSchema), labelledSchema.transform((item) => [item])]).nullish();

const scoreSchema = z
  .looseObject({
    aggressiveness: lenientNumber.nullish(),
    threat: lenientNumber.nullish(),
    trust: lenientNumber.nullish(),
    anomaly: lenientNumber.nullish(),
    total: lenientNumber.nullish(),
  })
  .nullish();

const smokeSchema = z.looseObject({
  ip: z.string(),
  reputation: text,
  confidence: text,
  ip_range_score: lenientNumber.nullish(),
  background_noise: text,
  background_noise_score: lenientNumber.nullish(),
  behaviors: labelledList,
  classifications: z.looseObject({ classifications: labelledList, false_positives: labelledList }).nullish(),
  attack_details: labelledList,
  scores: z
    .looseObject({ overall: scoreSchema, last_day: scoreSchema, last_week: scoreSchema, last_month: scoreSchema })
    .nullish(),
  history: z
    .looseObject({
      first_seen: text,
      last_seen: text,
      full_age: lenientNumber.nullish(),
      days_age: lenientNumber.nullish(),
    })
    .nullish(),
  target_countries: z.record(z.string(), lenientNumber.nullish()).nullish(),
  mitre_techniques: labelledList,
  cves: z.array(z.string()).nullish(),
  references: labelledList,
});

const messageSchema = z.looseObject({ message: z.string() });

type Smoke = z.infer<typeof smokeSchema>;
type Labelled = z.infer<typeof labelledSchema>;

/**
 * The CrowdSec CTI feed (`feed_cti`): asks `GET /smoke/{ip}` about an IPv4 or IPv6 address. CrowdSec's reputation
 * decides the verdict (malicious, suspicious; safe, benign and any false-positive class are clean; unknown is not
 * found); `known`, which CrowdSec defines as "identified, but not enough to decide", is suspicious only with an
 * overall score of 3/5 or more and otherwise stays `unknown`. The score is the overall score over 5. Behaviours become
 * categories; classifications and attack scenarios become tags.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({ sources: ['feed_cti'], apiKeys: { feed_cti: process.env.CROWDSEC_CTI_KEY } });
 * ```
 */
export const crowdsecFeed: Feed = {
  specificationVersion: 'v1',
  id: FEED_ID,
  name: 'CrowdSec CTI',
  supportedTypes: SUPPORTED_TYPES,
  requiresKey: true,
  defaultEndpoint: 'https://cti.api.crowdsec.net/v2',
  lookup: lookupCrowdsec,
};

async function lookupCrowdsec(indicator: Indicator, context: FeedLookupContext): Promise<FeedLookupResult> {
  if (!SUPPORTED_TYPES.includes(indicator.type)) {
    return failure('unsupported', `CrowdSec CTI checks IPv4 and IPv6 addresses, not ${indicator.type} indicators`);
  }
  if (!context.apiKey) return failure('not_configured', 'CrowdSec CTI needs an API key (apiKeys.feed_cti)');

  // An address holds only digits, hex letters, dots and colons, all of which are valid in a path segment.
  const base = context.endpoint.replace(/\/+$/, '');
  const response = await context.http.request(`${base}/smoke/${indicator.value}`, {
    method: 'GET',
    headers: { 'x-api-key': context.apiKey, Accept: 'application/json' },
    signal: context.signal,
  });
  const reference = `https://app.crowdsec.net/cti/${indicator.value}`;

  const message = vendorMessage(response.body);
  // Only CrowdSec's own 404 answer means "no data"; a bare 404 from a wrong endpoint is a failure, not an answer.
  if (response.status === 404 && message !== undefined) {
    return answer({
      status: 'not_found',
      verdict: 'unknown',
      references: [reference],
      evidence: [`CrowdSec has no information about it ("${message}").`],
    });
  }
  const failed = failureFromResponse(FEED_ID, response);
  if (failed) return describeFailure(failed, response, message);
  const parsed = parseBody(FEED_ID, response, smokeSchema);
  if (!parsed.ok) return parsed.result;
  const raw = context.includeRaw ? JSON.parse(response.body) : undefined;
  return interpret(parsed.data, reference, raw);
}

function interpret(data: Smoke, reference: string, raw: unknown): FeedLookupResult {
  const reputation = data.reputation?.toLowerCase() ?? undefined;
  const falsePositives = labels(data.classifications?.false_positives);
  const classifications = labels(data.classifications?.classifications);
  const behaviours = labels(data.behaviors);
  const scenarios = labels(data.attack_details);
  const total = data.scores?.overall?.total ?? undefined;
  const common = {
    references: [reference],
    tags: [...classifications, ...falsePositives, ...scenarios],
    firstSeen: data.history?.first_seen ?? undefined,
    lastSeen: data.history?.last_seen ?? undefined,
    ...(raw === undefined ? {} : { raw }),
  };

  if (falsePositives.length > 0 || reputation === 'safe') {
    const why =
      falsePositives.length > 0 ? `Known benign: ${falsePositives.join(', ')}` : 'CrowdSec rates it safe (trusted)';
    return answer({ ...common, status: 'ok', verdict: 'clean', score: 0, evidence: [`${why}.`] });
  }
  if (reputation === 'benign') {
    const who = classifications.length > 0 ? classifications.join(', ') : 'a known entity';
    return answer({
      ...common,
      status: 'ok',
      verdict: 'clean',
      score: 0,
      evidence: [`CrowdSec rates it benign, not dangerous: ${who}.`],
    });
  }
  if (reputation === 'unknown') {
    return answer({
      ...common,
      status: 'not_found',
      verdict: 'unknown',
      evidence: ['CrowdSec has no report about it in the last three months (reputation "unknown").'],
    });
  }

  const { verdict, reason } = decide(reputation, total);
  const evidence = [reason];
  if (behaviours.length > 0) evidence.push(`Reported for ${behaviours.slice(0, 4).join(', ')}.`);
  const noise = backgroundNoise(data);
  if (noise) evidence.push(noise);
  const blocklists = labels(data.references);
  if (blocklists.length > 0) evidence.push(`On blocklists: ${blocklists.slice(0, 3).join(', ')}.`);

  return answer({
    ...common,
    status: 'ok',
    verdict,
    score: total === undefined ? fallbackScore(verdict) : total / 5,
    categories: behaviours,
    evidence: evidence.slice(0, 4),
  });
}

/** The verdict for reputations that are not a clean or "no data" answer, with the sentence that explains it. */
function decide(reputation: string | undefined, total: number | undefined): { verdict: FeedVerdict; reason: string } {
  const score = total === undefined ? 'no overall score' : `overall score ${total}/5`;
  switch (reputation) {
    case 'malicious':
    case 'suspicious':
      return { verdict: reputation, reason: `CrowdSec rates it ${reputation}, ${score}.` };
    case 'known':
      // CrowdSec: "the network has identified the IP, but we still require additional information to make a
      // decision". That is never a clean bill of health; a high score is still worth a second look.
      return total !== undefined && total >= KNOWN_SUSPICIOUS_FROM
        ? { verdict: 'suspicious', reason: `CrowdSec has seen it but not decided (reputation "known"), ${score}.` }
        : { verdict: 'unknown', reason: `CrowdSec has seen it but not decided (reputation "known"), ${score}.` };
    default: {
      // No reputation (older answers) or a value this adapter does not know: read the overall score the way the
      // docs map range scores to reputations (4-5 malicious, 2-3 suspicious).
      const named = reputation === undefined ? 'no reputation' : `reputation "${reputation}"`;
      const verdict: FeedVerdict =
        total === undefined ? 'unknown' : total >= 4 ? 'malicious' : total >= 2 ? 'suspicious' : 'unknown';
      return { verdict, reason: `CrowdSec sent ${named}; judged by its ${score}.` };
    }
  }
}

/** A score for an answer without `scores.overall.total`: the middle of the docs' score band for the verdict. */
function fallbackScore(verdict: FeedVerdict): number {
  return verdict === 'malicious' ? 0.9 : verdict === 'suspicious' ? 0.5 : 0.2;
}

function backgroundNoise(data: Smoke): string | undefined {
  const level = data.background_noise?.toLowerCase();
  const score = data.background_noise_score ?? undefined;
  const scored = score === undefined ? '' : ` (noise score ${score}/10)`;
  if (level === 'high') return `Background noise: an internet-wide scanner, untargeted mass attacks${scored}.`;
  if (level === 'medium') return `Background noise medium: reported by many CrowdSec users${scored}.`;
  return undefined;
}

function labels(items: readonly Labelled[] | null | undefined): string[] {
  return (items ?? []).map((item) => item.label?.trim() || item.name);
}

function vendorMessage(body: string): string | undefined {
  try {
    const parsed = messageSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.message.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

function describeFailure(
  result: FeedLookupResult,
  response: HttpResponse,
  message: string | undefined,
): FeedLookupResult {
  if (!result.error) return result;
  let text = result.error.message;
  // CrowdSec answers 429 for two reasons and names them only in the body.
  if (response.status === 429 && message && /limit exceeded/i.test(message)) {
    text = `${text}: the CrowdSec CTI quota of this key is used up ("${message}")`;
  } else if (response.status === 429 && message) {
    text = `${text}: too many requests in a short time ("${message}")`;
  } else if (message) {
    text = `${text}: CrowdSec says "${message}"`;
  }
  return { ...result, evidence: [text], error: { ...result.error, message: text } };
}
