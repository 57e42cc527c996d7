import type { ConfigurationIssue } from '../errors/configuration-error.js';
import type { IndicatorType } from '../indicators/indicator.js';
import { readStixPattern } from './read-stix-pattern.js';
import { indicatorTypeAt } from './stix-object-paths.js';

/** A comparison of a STIX indicator's pattern that names a value of one of core's indicator types. */
export interface StixEntryValue {
  /** The type the pattern's object path holds. */
  readonly type: IndicatorType;
  /** The string literal, unescaped and not yet checked (it may be a CIDR range for an address type). */
  readonly value: string;
  /** Where it was written (`domain-name:value`), for reasons. */
  readonly where: string;
}

/** One usable STIX indicator object of a bundle. */
interface StixEntry {
  readonly id: string;
  /** Its 0-based position in the bundle's `objects`. */
  readonly index: number;
  readonly confidence?: number;
  readonly labels: readonly string[];
  /** The values its pattern names, joined by OR. */
  readonly values: readonly StixEntryValue[];
}

/** An indicator object, or part of one, that was not read, and why. */
export interface StixSkip {
  /** The indicator's STIX id (`objects[<n>]` when it has none). */
  readonly id: string;
  /** Its 0-based position in the bundle's `objects`. */
  readonly index: number;
  readonly reason: string;
}

/** What {@link readStixBundleEntries} found. */
interface StixBundleEntries {
  readonly entries: readonly StixEntry[];
  readonly skipped: readonly StixSkip[];
}

/** The outcome of {@link readStixBundleEntries}: the entries, or every problem that makes the input no bundle. */
export type StixBundleEntriesResult =
  | { readonly ok: true; readonly value: StixBundleEntries }
  | { readonly ok: false; readonly issues: readonly ConfigurationIssue[] };

type JsonObject = Record<string, unknown>;

/**
 * The indicator objects of a STIX 2.x bundle (JSON text or parsed), each with the values its pattern names. What is
 * not used is reported in `skipped` with the reason: an indicator that is revoked, expired at `now`, of another
 * `pattern_type`, an older version of an id the bundle holds again, or whose pattern is not valid; and each part of
 * a pattern that names no single indicator value (AND, qualifiers, other operators, unknown properties). Objects
 * other than indicators (identities, relationships, …) are not indicators and are passed over.
 */
export function readStixBundleEntries(bundle: unknown, now: number): StixBundleEntriesResult {
  let json = bundle;
  if (typeof bundle === 'string') {
    try {
      json = JSON.parse(bundle.startsWith('\uFEFF') ? bundle.slice(1) : bundle);
    } catch (error) {
      return { ok: false, issues: [{ path: '', message: `not JSON (${(error as Error).message})` }] };
    }
  }
  if (!isObject(json)) return { ok: false, issues: [{ path: '', message: 'expected a STIX bundle object' }] };
  const issues: ConfigurationIssue[] = [];
  if (json.type !== 'bundle') {
    issues.push({ path: 'type', message: `expected "bundle", got ${JSON.stringify(json.type) ?? 'nothing'}` });
  }
  if (json.objects !== undefined && !Array.isArray(json.objects)) {
    issues.push({ path: 'objects', message: 'expected a list of STIX objects' });
  }
  if (issues.length > 0) return { ok: false, issues };

  const objects = (json.objects ?? []) as unknown[];
  const skipped: StixSkip[] = [];
  const latest = latestVersions(objects, skipped);
  const entries: StixEntry[] = [];
  objects.forEach((object, index) => {
    if (!isObject(object) || object.type !== 'indicator' || latest.get(object.id) !== index) return;
    const id = object.id as string;
    const skip = (reason: string) => skipped.push({ id, index, reason });
    const problem = unusable(object, now);
    if (problem !== undefined) {
      skip(problem);
      return;
    }
    const reading = readStixPattern(object.pattern as string);
    if (!reading.ok) {
      skip(`its pattern ${reading.reason}`);
      return;
    }
    const values: StixEntryValue[] = [];
    for (const part of reading.parts) {
      if (!part.ok) {
        skip(`its pattern: ${part.reason}`);
        continue;
      }
      const { objectType, path, value } = part.comparison;
      const at = indicatorTypeAt(objectType, path);
      if (!at.ok) skip(`its pattern: ${at.reason}`);
      else values.push({ type: at.type, value, where: `${objectType}:${path.join('.')}` });
    }
    if (values.length === 0) return;
    const { confidence, labels } = object;
    entries.push({
      id,
      index,
      ...(Number.isInteger(confidence) && (confidence as number) >= 0 && (confidence as number) <= 100
        ? { confidence: confidence as number }
        : {}),
      labels: Array.isArray(labels) ? labels.filter((label): label is string => typeof label === 'string') : [],
      values,
    });
  });
  skipped.sort((a, b) => a.index - b.index);
  return { ok: true, value: { entries, skipped } };
}

/**
 * For each indicator id, the position of its latest version (greatest `modified`); every other version, and every
 * indicator without an id, is reported skipped.
 */
function latestVersions(objects: readonly unknown[], skipped: StixSkip[]): Map<unknown, number> {
  const latest = new Map<unknown, number>();
  objects.forEach((object, index) => {
    if (!isObject(object) || object.type !== 'indicator') return;
    if (typeof object.id !== 'string' || !object.id.startsWith('indicator--')) {
      skipped.push({
        id: `objects[${index}]`,
        index,
        reason: 'is an indicator without a valid id (indicator--<UUID>)',
      });
      return;
    }
    const earlier = latest.get(object.id);
    if (earlier === undefined) {
      latest.set(object.id, index);
      return;
    }
    const other = objects[earlier] as JsonObject;
    const [older, newer] = modifiedTime(object) > modifiedTime(other) ? [earlier, index] : [index, earlier];
    latest.set(object.id, newer);
    const kept = (objects[newer] as JsonObject).modified;
    skipped.push({
      id: object.id,
      index: older,
      reason: `is an older version (modified ${String((objects[older] as JsonObject).modified)}) of an indicator the bundle also holds as modified ${String(kept)}`,
    });
  });
  return latest;
}

function unusable(object: JsonObject, now: number): string | undefined {
  if (object.revoked === true) return 'is revoked';
  const patternType = object.pattern_type;
  // STIX 2.0 indicators have no pattern_type: their patterns are STIX patterns.
  if (patternType !== undefined && patternType !== 'stix') {
    return `has pattern_type ${JSON.stringify(patternType)}; only STIX patterns are read`;
  }
  if (typeof object.pattern !== 'string') return 'has no pattern';
  if (typeof object.valid_until === 'string') {
    const until = Date.parse(object.valid_until);
    if (Number.isFinite(until) && until <= now) return `expired (valid_until ${object.valid_until})`;
  }
  return undefined;
}

function modifiedTime(object: JsonObject): number {
  const time = typeof object.modified === 'string' ? Date.parse(object.modified) : Number.NaN;
  return Number.isFinite(time) ? time : Number.NEGATIVE_INFINITY;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
