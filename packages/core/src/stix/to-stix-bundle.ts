import type { ConfigurationIssue } from '../errors/configuration-error.js';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { Indicator } from '../indicators/indicator.js';
import { type IndicatorTypeName, isIndicatorTypeName } from '../indicators/indicator-type-name.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { shownInput } from '../records/shown-input.js';
import { confidenceProblem } from '../units/confidence-scale.js';
import {
  type StixBundle,
  type StixExternalReference,
  type StixIndicator,
  stixIndicatorId,
  THREATLIB_STIX_IDENTITY,
} from './stix-objects.js';
import { toStixPattern } from './stix-pattern.js';
import { isUuid } from './uuid-v5.js';

/** What one source said, as {@link toStixBundle} reads it from a correlation's `results` (a `FeedResult` is one). */
export interface StixSourceAnswer {
  /** The source id (`feed_otx`, `list:ipsum`); it becomes an external reference's `source_name`. */
  readonly feed: string;
  /** Only `ok` answers become references: the others did not answer. */
  readonly status: string;
  readonly verdict: string;
  /** 0..1. */
  readonly score?: number;
  readonly categories?: readonly string[];
  readonly tags?: readonly string[];
  readonly malwareFamilies?: readonly string[];
  /** Links about the indicator at the source; each http(s) one becomes an external reference `url`. */
  readonly references?: readonly string[];
}

/**
 * What {@link toStixBundle} reads from a correlation. A `Correlation` (the `correlated` event's payload) and a
 * `CorrelationResult` (what `client.correlate` resolves to) are both one; so is anything else with these fields.
 */
export interface StixCorrelationInput {
  /** The indicator; normalised again with `parseIndicator(indicator, type)`. */
  readonly indicator: string;
  /** Its type; an alias (`ip`, `hostname`) is resolved. */
  readonly type: IndicatorTypeName;
  /** 0..100; rounded to the integer STIX requires. */
  readonly confidence: number;
  /** Gives `indicator_types`: malicious → `malicious-activity`, suspicious → `anomalous-activity`, … */
  readonly verdict: 'malicious' | 'suspicious' | 'clean' | 'unknown';
  /** When the correlation was made (ISO 8601); `options.now` when absent. */
  readonly startedAt?: string | Date;
  /** The sources' answers (a `CorrelationResult` has them): references, labels and links. */
  readonly results?: readonly StixSourceAnswer[];
  /** Used instead of `results` when there are none (a plain `Correlation` has only these). */
  readonly contributions?: readonly StixSourceAnswer[];
}

/** Options of {@link toStixBundle}. */
export interface ToStixBundleOptions {
  /** The time of correlations that carry no `startedAt` (default: the current time). */
  readonly now?: Date | string | number;
  /** The bundle's id, `bundle--<UUID>` (default: a new random one: a bundle is a one-off envelope). */
  readonly bundleId?: string;
}

const INDICATOR_TYPES_FOR_VERDICT: Readonly<Record<StixCorrelationInput['verdict'], string>> = {
  malicious: 'malicious-activity',
  suspicious: 'anomalous-activity',
  clean: 'benign',
  unknown: 'unknown',
};
const VERDICTS = Object.keys(INDICATOR_TYPES_FOR_VERDICT);
// Further indicator-type vocabulary values (STIX 2.1 section 10.12) that a flagging source's categories or tags
// name: an anonymising relay or a compromised host is worth saying apart from plain malicious activity.
const CATEGORY_INDICATOR_TYPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:tor|proxy|proxies|vpn|anonymi[sz])/i, 'anonymization'],
  [/\bcompromis/i, 'compromised'],
];
const FLAGGING = new Set(['malicious', 'suspicious']);

/**
 * A STIX 2.1 bundle of indicator objects, one per distinct indicator of `correlations`, with the threatlib identity
 * (`created_by_ref`) first. Each indicator has:
 * - `id`: {@link stixIndicatorId}, the UUIDv5 of the normalised indicator, the same in every bundle;
 * - `created`, `modified`, `valid_from`: the correlation's `startedAt` (else `options.now`), to the millisecond; an
 *   indicator given more than once is written once, `created` from its earliest correlation, everything else from
 *   its latest;
 * - `pattern` ({@link toStixPattern}), `pattern_type: 'stix'`, `pattern_version: '2.1'`, `name` (the value) and a
 *   `description` of the verdict;
 * - `indicator_types` from the verdict (malicious → `malicious-activity`, suspicious → `anomalous-activity`, clean
 *   → `benign`, unknown → `unknown`), plus `anonymization` or `compromised` when a flagging source's categories or
 *   tags say so;
 * - `confidence`: the correlation's confidence (0..100) rounded to an integer; a 0..1 fraction is refused;
 * - `labels`: the categories, tags and malware families of the sources that flagged it;
 * - `external_references`: one per source that answered (`source_name` the feed id, `description` its verdict),
 *   one per http(s) reference URL when it gave any.
 *
 * @throws {@link ValidationError} naming each correlation that cannot be written and why (an invalid indicator, named
 * with its control characters escaped: `198.51.100.7\n0.0.0.0/0` is not one indicator and never becomes a pattern;
 * a confidence that is not a number from 0 to 100 or is a 0..1 fraction, an unreadable `startedAt`), or an invalid
 * option. Nothing is written for a batch with one bad correlation.
 *
 * @example
 * ```ts
 * const correlation = await client.correlate('evil.example');
 * const bundle = toStixBundle([correlation]);
 * await writeFile('threats.json', JSON.stringify(bundle));
 * ```
 */
export function toStixBundle(
  correlations: Iterable<StixCorrelationInput>,
  options: ToStixBundleOptions = {},
): StixBundle {
  const issues: ConfigurationIssue[] = [];
  const bundleId = options.bundleId ?? `bundle--${globalThis.crypto.randomUUID()}`;
  if (typeof bundleId !== 'string' || !bundleId.startsWith('bundle--') || !isUuid(bundleId.slice(8))) {
    issues.push({ path: 'options.bundleId', message: `expected bundle--<UUID>, got ${JSON.stringify(bundleId)}` });
  }
  const now = options.now === undefined ? Date.now() : toTime(options.now);
  if (now === undefined) issues.push({ path: 'options.now', message: 'is not a date' });
  if (correlations === null || typeof (correlations as Iterable<unknown>)?.[Symbol.iterator] !== 'function') {
    throw new ValidationError('STIX bundle input', [{ path: '', message: 'expected a list of correlations' }]);
  }

  const byId = new Map<string, { first: number; last: number; indicator: StixIndicator }>();
  let index = -1;
  for (const correlation of correlations) {
    index += 1;
    const written = writeIndicator(correlation, now ?? 0, `[${index}]`, issues);
    if (written === undefined) continue;
    const { indicator, time } = written;
    const seen = byId.get(indicator.id);
    if (seen === undefined) {
      byId.set(indicator.id, { first: time, last: time, indicator });
      continue;
    }
    seen.first = Math.min(seen.first, time);
    if (time >= seen.last) {
      seen.last = time;
      seen.indicator = indicator;
    }
  }
  if (issues.length > 0) throw new ValidationError('STIX bundle input', issues);

  const indicators = [...byId.values()].map(({ first, indicator }) => ({ ...indicator, created: timestamp(first) }));
  return { type: 'bundle', id: bundleId, objects: [{ ...THREATLIB_STIX_IDENTITY }, ...indicators] };
}

function writeIndicator(
  correlation: StixCorrelationInput,
  now: number,
  path: string,
  issues: ConfigurationIssue[],
): { indicator: StixIndicator; time: number } | undefined {
  if (typeof correlation !== 'object' || correlation === null) {
    issues.push({ path, message: 'expected a correlation object' });
    return undefined;
  }
  const before = issues.length;
  let parsed: Indicator | undefined;
  if (!isIndicatorTypeName(correlation.type)) {
    issues.push({ path: `${path}.type`, message: `unknown indicator type ${shownInput(correlation.type)}` });
  } else {
    try {
      parsed = parseIndicator(correlation.indicator, correlation.type);
    } catch (error) {
      if (!InvalidIndicatorError.isInstance(error)) throw error;
      // The value named (quoted, its control characters escaped): which one it was matters in a batch.
      issues.push({ path: `${path}.indicator`, message: `${error.reason} (got ${shownInput(correlation.indicator)})` });
    }
  }
  const { confidence, verdict } = correlation;
  // A 0..1 score would be rounded to confidence 0 or 1: refused, as everywhere a 0..100 confidence is taken.
  const confidenceIssue = confidenceProblem(confidence);
  if (confidenceIssue !== undefined) issues.push({ path: `${path}.confidence`, message: confidenceIssue });
  if (!VERDICTS.includes(verdict)) {
    issues.push({
      path: `${path}.verdict`,
      message: `expected one of ${VERDICTS.join(', ')}, got ${JSON.stringify(verdict)}`,
    });
  }
  const time = correlation.startedAt === undefined ? now : toTime(correlation.startedAt);
  if (time === undefined) {
    issues.push({ path: `${path}.startedAt`, message: `is not a date: ${JSON.stringify(correlation.startedAt)}` });
  }
  if (issues.length > before || parsed === undefined || time === undefined) return undefined;

  const answers = correlation.results ?? correlation.contributions ?? [];
  const answered = answers.filter((answer) => answer.status === 'ok' && answer.verdict !== 'unknown');
  const flagging = answered.filter((answer) => FLAGGING.has(answer.verdict));
  const labels = unique(
    flagging.flatMap((answer) => [
      ...(answer.categories ?? []),
      ...(answer.tags ?? []),
      ...(answer.malwareFamilies ?? []),
    ]),
  );
  const indicatorTypes = unique([
    INDICATOR_TYPES_FOR_VERDICT[verdict],
    ...(FLAGGING.has(verdict)
      ? CATEGORY_INDICATOR_TYPES.filter(([words]) => labels.some((label) => words.test(label))).map(([, type]) => type)
      : []),
  ]);
  const references = answered.flatMap(externalReferences);
  const at = timestamp(time);
  const rounded = Math.round(confidence);
  const indicator: StixIndicator = {
    type: 'indicator',
    spec_version: '2.1',
    id: stixIndicatorId(parsed),
    created_by_ref: THREATLIB_STIX_IDENTITY.id,
    created: at,
    modified: at,
    name: parsed.value,
    description: describe(verdict, rounded, flagging, answered.length),
    indicator_types: indicatorTypes,
    pattern: toStixPattern(parsed),
    pattern_type: 'stix',
    pattern_version: '2.1',
    valid_from: at,
    confidence: rounded,
  };
  // STIX lists must not be empty: absent instead.
  if (labels.length > 0) indicator.labels = labels;
  if (references.length > 0) indicator.external_references = references;
  return { indicator, time };
}

function externalReferences(answer: StixSourceAnswer): StixExternalReference[] {
  const score =
    typeof answer.score === 'number' && Number.isFinite(answer.score) ? ` (score ${round(answer.score)})` : '';
  const description = `${answer.feed} says ${answer.verdict}${score}`;
  const urls = unique((answer.references ?? []).map(webUrl));
  if (urls.length === 0) return [{ source_name: answer.feed, description }];
  return urls.map((url) => ({ source_name: answer.feed, description, url }));
}

function describe(
  verdict: string,
  confidence: number,
  flagging: readonly StixSourceAnswer[],
  answered: number,
): string {
  const base = `threatlib verdict: ${verdict}, confidence ${confidence}`;
  if (answered === 0) return `${base}; no source gave an answer`;
  if (flagging.length === 0) return `${base}; none of the ${answered} sources that answered flagged it`;
  const names = flagging.map((answer) => answer.feed).join(', ');
  return `${base}; flagged by ${names} (${flagging.length} of ${answered} sources that answered)`;
}

/** An http(s) reference as a URL (WHATWG-serialised), or undefined for anything else a feed put there. */
function webUrl(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function unique(values: readonly unknown[]): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const trimmed = value.trim();
    if (trimmed !== '') seen.add(trimmed);
  }
  return [...seen];
}

// STIX timestamps have four-digit years (RFC 3339): 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z.
const FIRST_TIME = -62_167_219_200_000;
const LAST_TIME = 253_402_300_799_999;

function toTime(value: Date | string | number): number | undefined {
  const time =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'number'
        ? value
        : typeof value === 'string'
          ? Date.parse(value)
          : Number.NaN;
  return Number.isFinite(time) && time >= FIRST_TIME && time <= LAST_TIME ? time : undefined;
}

/** RFC 3339 in UTC with milliseconds, as STIX 2.1 wants `created` and `modified` (section 3.2). */
function timestamp(time: number): string {
  return new Date(time).toISOString();
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
