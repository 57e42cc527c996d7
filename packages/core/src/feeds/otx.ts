// AlienVault OTX DirectConnect API v1. What this adapter relies on, and where it was confirmed:
// - GET {base}/indicators/{IPv4|IPv6|domain|hostname|url|file}/{value}/general with the `X-OTX-API-KEY` header;
//   403 = invalid key, 400 = bad request (invalid indicator), 404 = not found: AlienVault-OTX/OTX-Python-SDK OTXv2.py
//   (create_indicator_detail_url, handle_response_errors) and IndicatorTypes.py (sections, `file` for all hashes).
// - A URL must be percent-encoded as one path segment; sent raw, OTX answers 400 for URL-unsafe values:
//   AlienVault-OTX/OTX-Python-SDK pull request #36 ("Urlencode indicator in the URL").
// - `pulse_info.count` / `pulses[]` (`id`, `name`, `tags`, `malware_families` as {id, display_name} objects,
//   `adversary` as a string, `created`/`modified` as zone-less ISO times, `references` that need not be links),
//   `validation` [{source, message, name}] ("Whitelisted domain …", "contained in whitelisted prefix"),
//   `false_positive` [{assessment: "accepted" | "pending", assessment_date}], 404 read as "not found" and 400 as
//   "invalid indicator": demisto/content Packs/AlienVault_OTX/Integrations/AlienVault_OTX_v2 (.py and _test.py).
// - Web pages for people: https://otx.alienvault.com/indicator/{ip|domain|hostname|url|file}/{value} and
//   https://otx.alienvault.com/pulse/{id}: OTX links used by Cortex and IntelOwl analyzers.
import { getDomain } from 'tldts';
import * as z from 'zod';
import type { Indicator, IndicatorType } from '../indicators/index.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from './feed.js';
import { answer, failure, failureFromResponse, parseBody } from './feed-response.js';
import { lenientNumber } from './lenient-number.js';

const FEED_ID = 'feed_otx';
const FEED_NAME = 'AlienVault OTX';
const SITE = 'https://otx.alienvault.com';
/** Pulse counts from which OTX's community consensus reads as malicious rather than suspicious. */
const MALICIOUS_PULSES = 5;
/** How many pulse links (pulse pages and the reports they cite) a result carries at most. */
const MAX_PULSE_REFERENCES = 10;
/** How many pulse names the evidence quotes. */
const QUOTED_PULSES = 3;

const text = z.string().nullish();

const pulseSchema = z.looseObject({
  id: text,
  name: text,
  tags: z.array(z.string()).nullish(),
  // Objects ({id, display_name, target}) in current answers; plain names in older ones.
  malware_families: z
    .array(
      z.union([z.string(), z.looseObject({ id: z.union([z.string(), z.number()]).nullish(), display_name: text })]),
    )
    .nullish(),
  adversary: text,
  created: text,
  modified: text,
  references: z.array(z.string()).nullish(),
});

const generalSchema = z.looseObject({
  indicator: text,
  pulse_info: z.looseObject({
    count: lenientNumber,
    pulses: z.array(pulseSchema).nullish(),
    references: z.array(z.string()).nullish(),
  }),
  validation: z.array(z.looseObject({ source: text, message: text, name: text })).nullish(),
  false_positive: z.array(z.looseObject({ assessment: text, assessment_date: text, report_date: text })).nullish(),
});

type General = z.infer<typeof generalSchema>;
type Pulse = z.infer<typeof pulseSchema>;

/** The API section an indicator is asked under, and the path of its page on the OTX site. */
interface Section {
  api: string;
  page: string;
}

function sectionOf(indicator: Indicator): Section | undefined {
  const byType: Partial<Record<IndicatorType, Section>> = {
    ipv4: { api: 'IPv4', page: 'ip' },
    ipv6: { api: 'IPv6', page: 'ip' },
    url: { api: 'url', page: 'url' },
    md5: { api: 'file', page: 'file' },
    sha1: { api: 'file', page: 'file' },
    sha256: { api: 'file', page: 'file' },
  };
  if (indicator.type !== 'domain') return byType[indicator.type];
  // OTX keeps registrable domains and their subdomains apart; a subdomain asked as `domain` misses its pulses.
  // When the public suffix list cannot name a registrable part, asking it as a domain is the better guess.
  const registrable = getDomain(indicator.value, { allowPrivateDomains: true });
  return registrable === null || registrable === indicator.value
    ? { api: 'domain', page: 'domain' }
    : { api: 'hostname', page: 'hostname' };
}

/**
 * The AlienVault OTX feed: how many community threat pulses mention an indicator, with their tags, malware families
 * and adversaries. OTX's allowlist (`validation`) and accepted false-positive reports make an indicator `clean`;
 * five or more pulses make it `malicious`, one to four `suspicious`, none `not_found`.
 *
 * @example
 * ```ts
 * client.registerFeed(otxFeed);
 * // apiKeys: { feed_otx: { key: process.env.OTX_API_KEY } } sends it as the X-OTX-API-KEY header
 * ```
 */
export const otxFeed: Feed = {
  specificationVersion: 'v1',
  id: FEED_ID,
  name: FEED_NAME,
  supportedTypes: ['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256'],
  requiresKey: true,
  defaultEndpoint: 'https://otx.alienvault.com/api/v1',
  async lookup(indicator: Indicator, context: FeedLookupContext): Promise<FeedLookupResult> {
    const section = sectionOf(indicator);
    if (!section) {
      return failure(
        'unsupported',
        `${FEED_NAME} cannot look up ${indicator.type} indicators (it answers IP addresses, domains, URLs and file hashes)`,
      );
    }
    if (!context.apiKey) return failure('not_configured', `${FEED_NAME} needs an API key (apiKeys.${FEED_ID}.key)`);
    // Other values are only letters, digits, dots, colons and hyphens once normalised; a URL carries `/`, `?` and `#`.
    const value = indicator.type === 'url' ? encodeURIComponent(indicator.value) : indicator.value;
    const response = await context.http.request(
      `${context.endpoint.replace(/\/+$/, '')}/indicators/${section.api}/${value}/general`,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'x-otx-api-key': context.apiKey },
        signal: context.signal,
      },
    );
    const page = `${SITE}/indicator/${section.page}/${encodeURIComponent(indicator.value)}`;

    if (response.status === 404) {
      return answer({
        status: 'not_found',
        verdict: 'unknown',
        references: [page],
        evidence: [`${FEED_NAME} has no record of it (HTTP 404).`],
      });
    }
    if (response.status === 400) {
      return failure('error', `${FEED_NAME} rejected the indicator as invalid for section ${section.api} (HTTP 400)`, {
        statusCode: 400,
      });
    }
    const refused = failureFromResponse(FEED_ID, response);
    if (refused) return refused;
    const parsed = parseBody(FEED_ID, response, generalSchema);
    if (!parsed.ok) return parsed.result;
    return verdictOf(parsed.data, page, context.includeRaw ? JSON.parse(response.body) : undefined);
  },
};

function verdictOf(data: General, page: string, raw: unknown): FeedLookupResult {
  const count = data.pulse_info.count;
  const pulses = data.pulse_info.pulses ?? [];
  const inPulses = `It appears in ${plural(count, 'pulse')}, but OTX's own listing takes precedence.`;

  const validation = (data.validation ?? []).filter((entry) => entry.message || entry.name);
  if (validation.length > 0) {
    const quoted = validation
      .slice(0, 2)
      .map((entry) => `"${entry.message || entry.name}"${entry.source ? ` (${entry.source})` : ''}`)
      .join(', ');
    return answer({
      status: 'ok',
      verdict: 'clean',
      score: 0,
      references: [page],
      evidence: [`${FEED_NAME} lists it as known good: ${quoted}.`, ...(count > 0 ? [inPulses] : [])],
      raw,
    });
  }
  // Only an accepted report is OTX's word; a pending one is somebody's claim still under review.
  const accepted = (data.false_positive ?? []).find((entry) => entry.assessment === 'accepted');
  if (accepted) {
    const when = accepted.assessment_date ? ` on ${accepted.assessment_date}` : '';
    return answer({
      status: 'ok',
      verdict: 'clean',
      score: 0,
      references: [page],
      evidence: [`${FEED_NAME} accepted a false-positive report for it${when}.`, ...(count > 0 ? [inPulses] : [])],
      raw,
    });
  }
  if (count === 0) {
    return answer({
      status: 'not_found',
      verdict: 'unknown',
      references: [page],
      evidence: [`No ${FEED_NAME} pulse mentions it.`],
      raw,
    });
  }

  const adversaries = unique(pulses.map((pulse) => pulse.adversary?.trim() ?? ''));
  const names = unique(pulses.map((pulse) => pulse.name?.trim() ?? '')).slice(0, QUOTED_PULSES);
  const evidence = [
    `${FEED_NAME} has ${plural(count, 'pulse')} about it${names.length > 0 ? `, such as ${names.map((name) => `"${name}"`).join(', ')}` : ''}.`,
  ];
  if (adversaries.length > 0) evidence.push(`Pulses attribute it to ${adversaries.join(', ')}.`);
  const families = pulses.flatMap(familiesOf);
  if (families.length > 0) evidence.push(`Malware families named: ${unique(families).join(', ')}.`);
  const dates = pulses.flatMap((pulse) => [pulse.created, pulse.modified]).filter((date): date is string => !!date);
  return answer({
    status: 'ok',
    verdict: count >= MALICIOUS_PULSES ? 'malicious' : 'suspicious',
    // Rounded so that 7 pulses and an adversary read 0.9, not 0.8999999999999999.
    score: Math.round((Math.min(1, count / 10) + (adversaries.length > 0 ? 0.2 : 0)) * 100) / 100,
    tags: pulses.flatMap((pulse) => pulse.tags ?? []),
    malwareFamilies: families,
    firstSeen: earliest(pulses.map((pulse) => pulse.created ?? pulse.modified)),
    lastSeen: latestOf(dates),
    references: [page, ...pulseReferences(data.pulse_info.references ?? [], pulses)],
    evidence,
    raw,
  });
}

function familiesOf(pulse: Pulse): string[] {
  return (pulse.malware_families ?? []).flatMap((family) => {
    const name = typeof family === 'string' ? family : (family.display_name ?? family.id);
    return name === undefined || name === null || name === '' ? [] : [String(name)];
  });
}

/** Reports the pulses cite (only real links: OTX lets authors write any text there), then the pulses' own pages. */
function pulseReferences(shared: string[], pulses: Pulse[]): string[] {
  const cited = [...shared, ...pulses.flatMap((pulse) => pulse.references ?? [])].filter((link) =>
    /^https?:\/\/\S+$/i.test(link.trim()),
  );
  const pages = pulses.flatMap((pulse) => (pulse.id ? [`${SITE}/pulse/${pulse.id}`] : []));
  return unique([...cited.map((link) => link.trim()), ...pages]).slice(0, MAX_PULSE_REFERENCES);
}

// OTX writes pulse times as zone-less ISO 8601 ("2020-12-11T23:37:51.039000"), which compare correctly as text.
function earliest(dates: (string | null | undefined)[]): string | undefined {
  return dates.filter((date): date is string => !!date).sort()[0];
}

function latestOf(dates: string[]): string | undefined {
  return [...dates].sort().at(-1);
}

function unique(items: string[]): string[] {
  return [...new Set(items.filter((item) => item !== ''))];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
