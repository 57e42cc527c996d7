import { createHash } from 'node:crypto';
import type { ConfigurationIssue } from '../errors/configuration-error.js';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { type IndicatorType, isIndicatorType } from '../indicators/indicator.js';
import { indicatorForOutput } from '../indicators/indicator-for-output.js';
import { INDICATOR_TYPE_NAMES, isIndicatorTypeName } from '../indicators/indicator-type-name.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { riskScoreForConfidence, SEVERITIES, type Severity, severityForRiskScore } from '../records/severity.js';
import type { StixSourceAnswer } from '../stix/to-stix-bundle.js';
import { isUuid, uuidV5 } from '../stix/uuid-v5.js';
import { quoteForDisplay } from '../text/control-characters.js';
import { confidenceProblem } from '../units/confidence-scale.js';
import type {
  MispFeed,
  MispFeedAttribute,
  MispFeedEvent,
  MispFeedTag,
  MispManifestEntry,
  MispOrganisation,
} from './misp-feed-document.js';
import type { MispAlertInput, MispCorrelationInput, MispFeedInput, ToMispFeedOptions } from './misp-feed-input.js';

export type {
  MispFeed,
  MispFeedAttribute,
  MispFeedEvent,
  MispFeedTag,
  MispManifestEntry,
  MispOrganisation,
} from './misp-feed-document.js';
export type { MispAlertInput, MispCorrelationInput, MispFeedInput, ToMispFeedOptions } from './misp-feed-input.js';

/**
 * The namespace of the UUIDs threatlib gives the MISP events and attributes it writes (UUIDv5, RFC 9562 section
 * 5.5). Drawn at random once; changing it would give every event threatlib ever published a new UUID.
 */
export const THREATLIB_MISP_NAMESPACE = 'f89e962f-f01a-4a08-87a6-7ec1d56c209c';

/** The creator of the events threatlib writes unless `orgc` says otherwise. */
export const THREATLIB_MISP_ORG: MispOrganisation = {
  name: 'threatlib',
  uuid: '7d0b65fd-bd0f-4e92-97c6-2e38f839ba1a',
};

interface AttributeKind {
  readonly type: string;
  readonly category: string;
}

// MISP attribute types and their default categories (PyMISP data/describeTypes.json, `sane_defaults`). An address is
// written ip-dst (a destination: where malware calls, what a user reached), an e-mail address email-src (a sender).
const ATTRIBUTE_KIND: Readonly<Record<IndicatorType, AttributeKind>> = {
  ipv4: { type: 'ip-dst', category: 'Network activity' },
  ipv6: { type: 'ip-dst', category: 'Network activity' },
  domain: { type: 'domain', category: 'Network activity' },
  url: { type: 'url', category: 'Network activity' },
  email: { type: 'email-src', category: 'Payload delivery' },
  md5: { type: 'md5', category: 'Payload delivery' },
  sha1: { type: 'sha1', category: 'Payload delivery' },
  sha256: { type: 'sha256', category: 'Payload delivery' },
};

// MISP threat levels: 1 High, 2 Medium, 3 Low, 4 Undefined.
const THREAT_LEVEL: Readonly<Record<Severity, number>> = { critical: 1, high: 1, medium: 2, low: 3, informational: 4 };
const VERDICTS = ['malicious', 'suspicious', 'clean', 'unknown'];
const FLAGGING = new Set(['malicious', 'suspicious']);
// MISP's tags table holds names of up to 255 characters.
const MAX_TAG_LENGTH = 255;
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
// The analysis of a verdict or an alert is done: MISP's 2, "Completed".
const ANALYSIS_COMPLETED = 2;

interface BuiltEvent {
  readonly uuid: string;
  readonly time: number;
  readonly info: string;
  readonly threatLevel: number;
  readonly tags: readonly string[];
  readonly attributes: readonly { kind: AttributeKind; value: string; toIds: boolean; comment: string }[];
}

/**
 * A MISP feed of correlations and alerts, in memory, in the format MISP's feed fetcher reads (MISP/MISP
 * app/Model/Feed.php) and PyMISP's feed generator writes (`MISPEvent.to_feed`, `feed_meta_generator`). Each
 * correlation is an event about its indicator, each alert an event of its indicators; the same correlation (by
 * indicator) or alert (by id) has the same event UUID in every export, so a MISP that fetches the feed again
 * updates the event instead of adding another. Given twice, the latest wins. Every indicator is checked where it is
 * written, by `indicatorForOutput` as every other export checks it: a value with a control character, a second line,
 * a range, over 8 KiB or of another type is refused, with the message those exports give.
 *
 * Writes no file: `exportMispFeed` (from `@threatlib/core/misp`) writes these files into a directory; anything else
 * (an object store, an HTTP response) can take `files`.
 *
 * @throws {@link ValidationError} naming each input that cannot be written and why, and each invalid option.
 *
 * @example
 * ```ts
 * const feed = toMispFeed([await client.correlate('198.51.100.7')], { tags: ['tlp:green'] });
 * for (const file of feed.files) await bucket.put(`feed/${file.name}`, file.text);
 * ```
 */
export function toMispFeed(items: Iterable<MispFeedInput>, options: ToMispFeedOptions = {}): MispFeed {
  const issues: ConfigurationIssue[] = [];
  const now = options.now === undefined ? Date.now() : toTime(options.now);
  if (now === undefined) issues.push({ path: 'options.now', message: 'is not a date' });
  const orgc = options.orgc ?? THREATLIB_MISP_ORG;
  if (typeof orgc?.name !== 'string' || !tagProblemFree(orgc.name) || orgc.name.trim() === '') {
    issues.push({ path: 'options.orgc.name', message: 'expected a name without control characters' });
  }
  if (typeof orgc?.uuid !== 'string' || !isUuid(orgc.uuid)) {
    issues.push({ path: 'options.orgc.uuid', message: 'expected a UUID' });
  }
  const extraTags = options.tags ?? [];
  if (!Array.isArray(extraTags)) issues.push({ path: 'options.tags', message: 'expected a list of tag names' });
  else {
    extraTags.forEach((tag, i) => {
      const problem = tagProblem(tag);
      if (problem) issues.push({ path: `options.tags[${i}]`, message: problem });
    });
  }
  if (items === null || typeof (items as Iterable<unknown>)?.[Symbol.iterator] !== 'function') {
    throw new ValidationError('MISP feed input', [{ path: '', message: 'expected a list of correlations or alerts' }]);
  }

  const byUuid = new Map<string, BuiltEvent>();
  let index = -1;
  for (const item of items) {
    index += 1;
    const built = buildEvent(item, now ?? 0, `[${index}]`, issues);
    if (built === undefined) continue;
    const seen = byUuid.get(built.uuid);
    if (seen === undefined || built.time >= seen.time) byUuid.set(built.uuid, built);
  }
  if (issues.length > 0) throw new ValidationError('MISP feed input', issues);

  const org = { name: orgc.name, uuid: orgc.uuid.toLowerCase() };
  const manifest: Record<string, MispManifestEntry> = {};
  const events: MispFeedEvent[] = [];
  const hashes: (readonly [string, string])[] = [];
  for (const built of [...byUuid.values()].sort((a, b) => (a.uuid < b.uuid ? -1 : 1))) {
    const seconds = Math.floor(built.time / 1000);
    const date = new Date(built.time).toISOString().slice(0, 10);
    const tags = [...new Set([...extraTags, ...built.tags])].map(feedTag);
    const attributes = built.attributes.map(
      (attribute): MispFeedAttribute => ({
        category: attribute.kind.category,
        comment: attribute.comment,
        deleted: false,
        disable_correlation: false,
        timestamp: String(seconds),
        to_ids: attribute.toIds,
        type: attribute.kind.type,
        uuid: uuidV5(`${built.uuid}/${attribute.kind.type}/${attribute.value}`, THREATLIB_MISP_NAMESPACE),
        value: attribute.value,
      }),
    );
    events.push({
      Event: {
        analysis: String(ANALYSIS_COMPLETED),
        date,
        extends_uuid: '',
        info: built.info,
        protected: false,
        publish_timestamp: String(seconds),
        published: true,
        threat_level_id: String(built.threatLevel),
        timestamp: String(seconds),
        uuid: built.uuid,
        Orgc: org,
        Tag: tags,
        Attribute: attributes,
      },
    });
    manifest[built.uuid] = {
      Orgc: org,
      Tag: tags,
      info: built.info,
      date,
      analysis: ANALYSIS_COMPLETED,
      threat_level_id: built.threatLevel,
      timestamp: seconds,
    };
    // As PyMISP's MISPAttribute.hash_values: each part of a composite value (none of these types is one).
    for (const attribute of attributes) hashes.push([md5(attribute.value), built.uuid]);
  }
  const files = [
    ...events.map((event) => ({ name: `${event.Event.uuid}.json`, text: JSON.stringify(event, null, 2) })),
    { name: 'hashes.csv', text: hashes.map(([hash, uuid]) => `${hash},${uuid}\n`).join('') },
    { name: 'manifest.json', text: JSON.stringify(manifest) },
  ];
  return { manifest, events, hashes, files };
}

function buildEvent(
  item: MispFeedInput,
  now: number,
  path: string,
  issues: ConfigurationIssue[],
): BuiltEvent | undefined {
  if (typeof item !== 'object' || item === null) {
    issues.push({ path, message: 'expected a correlation or an alert' });
    return undefined;
  }
  if (Array.isArray((item as MispAlertInput).indicators)) return alertEvent(item as MispAlertInput, path, issues);
  if (typeof (item as MispCorrelationInput).indicator === 'string') {
    return correlationEvent(item as MispCorrelationInput, now, path, issues);
  }
  issues.push({
    path,
    message:
      'expected a correlation {indicator, type, confidence, verdict} or an alert {id, title, severity, timestamp, indicators}',
  });
  return undefined;
}

function correlationEvent(
  correlation: MispCorrelationInput,
  now: number,
  path: string,
  issues: ConfigurationIssue[],
): BuiltEvent | undefined {
  const before = issues.length;
  const parsed = indicatorValue(correlation.type, correlation.indicator, path, issues, 'indicator');
  const { confidence, verdict, riskScore } = correlation;
  // The check toStixBundle and alerts make: a 0..1 score given for a 0..100 confidence is refused, not written as 1 %.
  const confidenceIssue = confidenceProblem(confidence);
  if (confidenceIssue) issues.push({ path: `${path}.confidence`, message: confidenceIssue });
  if (!VERDICTS.includes(verdict)) {
    issues.push({ path: `${path}.verdict`, message: `expected one of ${VERDICTS.join(', ')}, got ${shown(verdict)}` });
  }
  if (riskScore !== undefined && (typeof riskScore !== 'number' || !(riskScore >= 1 && riskScore <= 10))) {
    issues.push({ path: `${path}.riskScore`, message: `expected a number from 1 to 10, got ${shown(riskScore)}` });
  }
  const time = correlation.startedAt === undefined ? now : toTime(correlation.startedAt);
  if (time === undefined)
    issues.push({ path: `${path}.startedAt`, message: `is not a date: ${shown(correlation.startedAt)}` });
  if (issues.length > before || parsed === undefined || time === undefined) return undefined;

  const rounded = Math.round(confidence);
  const risk = riskScore ?? riskScoreForConfidence(confidence);
  const answers = correlation.results ?? correlation.contributions ?? [];
  return {
    uuid: uuidV5(`correlation/${parsed.type}/${parsed.value}`, THREATLIB_MISP_NAMESPACE),
    time,
    info: `threatlib: ${parsed.value} is ${verdict} (confidence ${rounded})`,
    threatLevel: THREAT_LEVEL[severityForRiskScore(risk)],
    tags: [`threatlib:verdict="${verdict}"`],
    attributes: [
      {
        kind: ATTRIBUTE_KIND[parsed.type],
        value: parsed.value,
        toIds: FLAGGING.has(verdict),
        comment: describeAnswers(verdict, rounded, answers),
      },
    ],
  };
}

function alertEvent(alert: MispAlertInput, path: string, issues: ConfigurationIssue[]): BuiltEvent | undefined {
  const before = issues.length;
  if (typeof alert.id !== 'string' || alert.id === '')
    issues.push({ path: `${path}.id`, message: 'expected the alert id' });
  if (typeof alert.title !== 'string' || alert.title.trim() === '') {
    issues.push({ path: `${path}.title`, message: 'expected the alert title' });
  }
  const severity = typeof alert.severity === 'string' ? alert.severity.toLowerCase() : undefined;
  if (!(SEVERITIES as readonly (string | undefined)[]).includes(severity)) {
    issues.push({
      path: `${path}.severity`,
      message: `expected one of ${SEVERITIES.join(', ')}, got ${shown(alert.severity)}`,
    });
  }
  const time = toTime(alert.timestamp);
  if (time === undefined)
    issues.push({ path: `${path}.timestamp`, message: `is not a date: ${shown(alert.timestamp)}` });
  if (alert.description !== undefined && typeof alert.description !== 'string') {
    issues.push({ path: `${path}.description`, message: 'expected text' });
  }
  const attributes: BuiltEvent['attributes'][number][] = [];
  const seen = new Set<string>();
  alert.indicators.forEach((indicator, i) => {
    const where = `${path}.indicators[${i}]`;
    if (typeof indicator !== 'object' || indicator === null) {
      issues.push({ path: where, message: 'expected {type, value}' });
      return;
    }
    const parsed = indicatorValue(indicator.type, indicator.value, where, issues, 'value');
    const confidenceIssue = indicator.confidence === undefined ? undefined : confidenceProblem(indicator.confidence);
    if (confidenceIssue) issues.push({ path: `${where}.confidence`, message: confidenceIssue });
    if (parsed === undefined || confidenceIssue) return;
    const kind = ATTRIBUTE_KIND[parsed.type];
    if (seen.has(`${kind.type}/${parsed.value}`)) return;
    seen.add(`${kind.type}/${parsed.value}`);
    const said: string[] = [];
    if (typeof indicator.confidence === 'number') said.push(`confidence ${Math.round(indicator.confidence)}`);
    const sources = [...(indicator.source ? [indicator.source] : []), ...(indicator.sources ?? [])];
    if (sources.length > 0) said.push(`flagged by ${sources.join(', ')}`);
    attributes.push({ kind, value: parsed.value, toIds: true, comment: said.join('; ') });
  });
  if (issues.length > before || time === undefined || severity === undefined) return undefined;
  if (alert.description) {
    attributes.push({
      kind: { type: 'comment', category: 'Other' },
      value: alert.description,
      toIds: false,
      comment: '',
    });
  }
  return {
    uuid: uuidV5(`alert/${alert.id}`, THREATLIB_MISP_NAMESPACE),
    time,
    info: alert.title,
    threatLevel: THREAT_LEVEL[severity as Severity],
    tags: [`threatlib:severity="${severity}"`],
    attributes,
  };
}

/**
 * The value to write for an indicator: checked and normalised by `indicatorForOutput`, the check every export makes
 * where it writes an indicator (GuardDuty TXT and STIX lists, CEF, LEEF and JSON events), so that what is not exactly
 * one indicator of that type (a second line, a control character, a range, a value over 8 KiB) is refused here too,
 * whatever source handed it over, with the same message. An alias type (`ip`, `hostname`, which alerts and
 * correlations may carry) is first resolved to the precise type the value has.
 */
function indicatorValue(
  type: unknown,
  value: unknown,
  path: string,
  issues: ConfigurationIssue[],
  field: 'indicator' | 'value',
): { type: IndicatorType; value: string } | undefined {
  if (!isIndicatorTypeName(type)) {
    issues.push({
      path: `${path}.type`,
      message: `unknown indicator type ${shown(type)} (expected one of ${INDICATOR_TYPE_NAMES.join(', ')})`,
    });
    return undefined;
  }
  try {
    const precise = isIndicatorType(type) ? type : parseIndicator(value as string, type).type;
    const written = indicatorForOutput(precise, value);
    // MISP lower-cases an e-mail address when it stores it (AttributeValidationTool::modifyBeforeValidation): written
    // so, the value MISP holds and the MD5 in hashes.csv are the same.
    return { type: precise, value: precise === 'email' ? written.toLowerCase() : written };
  } catch (error) {
    if (!InvalidIndicatorError.isInstance(error)) throw error;
    issues.push({ path: `${path}.${field}`, message: error.message });
    return undefined;
  }
}

function describeAnswers(verdict: string, confidence: number, answers: readonly StixSourceAnswer[]): string {
  const answered = answers.filter((answer) => answer.status === 'ok' && answer.verdict !== 'unknown');
  const flagging = answered.filter((answer) => FLAGGING.has(answer.verdict));
  const base = `threatlib verdict: ${verdict}, confidence ${confidence}`;
  if (answered.length === 0) return base;
  if (flagging.length === 0) return `${base}; none of the ${answered.length} sources that answered flagged it`;
  const labels = [
    ...new Set(flagging.flatMap((a) => [...(a.categories ?? []), ...(a.tags ?? []), ...(a.malwareFamilies ?? [])])),
  ].slice(0, 20);
  const names = flagging.map((answer) => answer.feed).join(', ');
  return (
    `${base}; flagged by ${names} (${flagging.length} of ${answered.length} sources that answered)` +
    (labels.length > 0 ? `; ${labels.join(', ')}` : '')
  );
}

function feedTag(name: string): MispFeedTag {
  return { colour: `#${md5(name).slice(0, 6)}`, local: false, name, relationship_type: '' };
}

function tagProblem(tag: unknown): string | undefined {
  if (typeof tag !== 'string' || tag.trim() === '') return 'expected a tag name';
  if (tag.length > MAX_TAG_LENGTH) return `is ${tag.length} characters long (MISP keeps at most ${MAX_TAG_LENGTH})`;
  if (!tagProblemFree(tag)) return 'has a control character';
  return undefined;
}

function tagProblemFree(text: string): boolean {
  return !CONTROL.test(text);
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

function toTime(value: unknown): number | undefined {
  const time =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'number'
        ? value
        : typeof value === 'string'
          ? Date.parse(value)
          : Number.NaN;
  return Number.isFinite(time) && time >= 0 && time < 253_402_300_800_000 ? time : undefined;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return quoteForDisplay(value, 60);
  return value === undefined
    ? 'nothing'
    : typeof value === 'object'
      ? value === null
        ? 'null'
        : 'an object'
      : String(value);
}
