import type * as z from 'zod';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { isIndicatorTypeName } from '../indicators/indicator-type-name.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import type { IndicatorRecord } from '../records/indicator-record.js';
import { prototypeKeyPath } from '../records/prototype-keys.js';
import { SEVERITIES, type Severity, severityForRiskScore } from '../records/severity.js';
import { confidenceProblem } from '../units/confidence-scale.js';
import type { AlertInputSchema } from './alert.js';
import { metadataProblem } from './alert-metadata.js';

/** What {@link AlertInputSchema} makes of an input (the fields `normaliseAlert` reads). */
type AlertData = z.output<typeof AlertInputSchema>;

/** The fields the fast path checks itself; an input with any other key is left to the schema. */
const FAST_KEYS: ReadonlySet<string> = new Set([
  'id',
  'title',
  'severity',
  'description',
  'indicators',
  'timestamp',
  'source',
  'riskScore',
  'metadata',
]);
const INDICATOR_KEYS: ReadonlySet<string> = new Set(['type', 'value', 'confidence', 'source', 'sources']);
const PROTO_KEY: ReadonlySet<string> = new Set(['__proto__']);
const SEVERITY_SET: ReadonlySet<string> = new Set(SEVERITIES);
/** What `toISOString` writes (four-digit years): a timestamp in this form whose date exists is one the schema accepts. */
const CANONICAL_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * {@link AlertInputSchema}'s result for the common form of a hand-written alert (`{id?, title, severity,
 * description?, indicators?, timestamp?, source?, riskScore?, metadata?}`, plain objects, a timestamp as
 * `toISOString` writes it: also the form of the client's own alert for a threat), checked by hand at a fraction of zod's cost; `undefined` for anything else, valid or not, which the schema
 * then decides (so every error is the schema's own). The schema is the contract: property tests check that whatever
 * this accepts the schema accepts with the same result, and that on the form it covers it accepts what the schema
 * accepts.
 */
export function fastAlertInput(input: unknown): AlertData | undefined {
  if (!isPlainObject(input)) return undefined;
  for (const key of Object.keys(input)) if (!FAST_KEYS.has(key)) return undefined;
  const { id, title, severity, description, indicators, timestamp, source, riskScore, metadata } = input;
  if (id !== undefined && (typeof id !== 'string' || id.length < 1 || id.length > 200)) return undefined;
  if (typeof title !== 'string') return undefined;
  const trimmed = title.trim();
  if (trimmed.length < 1 || trimmed.length > 500) return undefined;
  if (description !== undefined && (typeof description !== 'string' || description.length > 20_000)) return undefined;
  if (source !== undefined && (typeof source !== 'string' || source.length > 200)) return undefined;
  if (riskScore !== undefined && !(typeof riskScore === 'number' && riskScore >= 1 && riskScore <= 10)) {
    return undefined;
  }
  if (timestamp !== undefined && !isCanonicalTimestamp(timestamp)) return undefined;
  const meta = metadata === undefined ? undefined : metadataRecord(metadata);
  if (meta === null) return undefined;
  const given = severity === undefined ? undefined : severityOf(severity);
  if (given === null) return undefined;
  const level = given ?? (riskScore === undefined ? undefined : severityForRiskScore(riskScore));
  if (level === undefined) return undefined;
  let records: IndicatorRecord[] = [];
  if (indicators !== undefined) {
    if (!Array.isArray(indicators) || indicators.length > 10_000) return undefined;
    records = new Array(indicators.length);
    for (let i = 0; i < indicators.length; i++) {
      const record = indicatorRecord(indicators[i]);
      if (record === undefined) return undefined;
      records[i] = record;
    }
  }
  // As the schema writes it: a key given (even as undefined) is kept, in the schema's order.
  const data: Record<string, unknown> = {};
  if ('id' in input) data.id = id;
  data.title = trimmed;
  if ('description' in input) data.description = description;
  if ('timestamp' in input) data.timestamp = timestamp;
  if ('source' in input) data.source = source;
  if ('metadata' in input) data.metadata = meta;
  data.severity = level;
  data.indicators = records;
  if (riskScore !== undefined) data.riskScore = riskScore;
  return data as AlertData;
}

/**
 * The schema's copy of `metadata` (its own enumerable keys), or `null` where the schema might refuse it: not an object
 * zod takes for a record (an own `constructor` function among them), a symbol key, a "__proto__" key at any depth,
 * not JSON or over the size limit.
 */
function metadataRecord(value: unknown): Record<string, unknown> | null {
  if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return null;
  const ctor = value.constructor;
  if (typeof ctor === 'function' && ctor !== Object) return null;
  if (prototypeKeyPath(value, PROTO_KEY) !== undefined) return null;
  const copy = { ...value };
  return metadataProblem(copy) === undefined ? copy : null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A severity the schema takes (any case), lower-cased; `null` when it is not one. */
function severityOf(value: unknown): Severity | null {
  if (typeof value !== 'string') return null;
  if (SEVERITY_SET.has(value)) return value as Severity;
  // The schema takes ASCII letters in any case only (a class per letter): no other character may lower-case into one.
  const lower = value.toLowerCase();
  return SEVERITY_SET.has(lower) && /^[A-Za-z]+$/.test(value) ? (lower as Severity) : null;
}

function isCanonicalTimestamp(value: unknown): boolean {
  if (typeof value !== 'string' || !CANONICAL_UTC.test(value)) return false;
  // The date and time must exist (no February 30th, hour 24 or second 60), as the schema's pattern requires.
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  return digits(value, 11, 2) <= 23 && digits(value, 14, 2) <= 59 && digits(value, 17, 2) <= 59;
}

/** The number written by the `count` ASCII digits of `text` at `at`. */
function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isShortString(value: unknown): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= 200;
}

/** The schema's record of one indicator (the keys in the schema's order), or undefined. */
function indicatorRecord(input: unknown): IndicatorRecord | undefined {
  if (!isPlainObject(input)) return undefined;
  for (const key of Object.keys(input)) if (!INDICATOR_KEYS.has(key)) return undefined;
  const { type, value, confidence, source, sources } = input;
  if (!isIndicatorTypeName(type)) return undefined;
  if (typeof value !== 'string' || value.length < 1 || value.length > 8192) return undefined;
  if (confidence !== undefined && confidenceProblem(confidence) !== undefined) return undefined;
  if (source !== undefined && !isShortString(source)) return undefined;
  if (sources !== undefined) {
    if (!Array.isArray(sources) || sources.length > 100) return undefined;
    for (let i = 0; i < sources.length; i++) if (!isShortString(sources[i])) return undefined;
  }
  let parsed: { type: IndicatorRecord['type']; value: string };
  try {
    parsed = parseIndicator(value, type);
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error)) return undefined;
    throw error;
  }
  // As the schema writes it: a key given (even as undefined) is kept, in the schema's order.
  const record: Record<string, unknown> = { type: parsed.type, value: parsed.value };
  if ('confidence' in input) record.confidence = confidence;
  if ('source' in input) record.source = source;
  if ('sources' in input) record.sources = sources === undefined ? undefined : [...(sources as string[])];
  return record as IndicatorRecord;
}
