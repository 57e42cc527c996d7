import { type ConfigurationIssue, ValidationError } from '@threatlib/core';
import { confidenceProblem } from '@threatlib/core/integration';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from './daily-index.js';

/** Longest keyword Elasticsearch indexes, in UTF-8 bytes (Lucene's term limit). */
const MAX_KEYWORD_BYTES = 32_766;

// An ISO 8601 date-time with its offset, what `toISOString` writes; a date alone or a local time is ambiguous.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** `value` as epoch ms when it is a valid `Date` or an ISO 8601 date-time with an offset; undefined otherwise. */
export function timestampOf(value: unknown): number | undefined {
  let time: number;
  if (value instanceof Date) time = value.getTime();
  else if (typeof value === 'string' && ISO_DATE_TIME.test(value)) time = Date.parse(value);
  else return undefined;
  return Number.isNaN(time) ? undefined : time;
}

/** The fields of a search-index document. */
const FIELD_SET: ReadonlySet<string> = new Set([
  'indicator',
  'threat_type',
  'confidence',
  'sources',
  '@timestamp',
  'campaign',
]);
// What `toISOString` writes (years 1970 to 9999).
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A search-index document as `index(indexKey, document)` takes it. */
export interface SearchDocument {
  indicator: string;
  threat_type?: string;
  confidence?: number;
  sources?: string[];
  /** An ISO 8601 date-time (`new Date().toISOString()`) or a `Date`. */
  '@timestamp': string | Date;
  /** The campaign the document belongs to. */
  campaign?: string;
}

/** A search-index document as stored and given back by `search`: `@timestamp` as an ISO 8601 string in UTC. */
export interface StoredSearchDocument extends Omit<SearchDocument, '@timestamp'> {
  '@timestamp': string;
}

/**
 * A validated document ready to send: its source (serialise it before the caller's arrays can change: `sources` is
 * the caller's own) and its time.
 */
export interface PreparedDocument {
  source: StoredSearchDocument;
  time: number;
}

/**
 * Validates a search-index document and makes its source: `@timestamp` written as `toISOString()` gives it. The
 * documented document (`{indicator, threat_type, confidence, sources, '@timestamp'}`) and the campaign it belongs to:
 * `indicator` and `@timestamp` are required (the time picks the daily index); a field the mapping does not have is
 * refused here, before anything is sent. `confidence` is 0..100: a 0..1 score is refused ("did you mean 90?").
 * Checked by hand rather than by a schema: it runs for every document of a bulk, and a schema library costs several
 * times the serialisation.
 *
 * @throws {ValidationError} `Invalid <subject>: <field>: <reason>`, naming every field that is wrong.
 */
export function prepareSearchDocument(document: unknown, subject = 'search-index document'): PreparedDocument {
  const issues: ConfigurationIssue[] = [];
  if (!isPlainObject(document)) {
    throw new ValidationError(subject, [{ path: '(root)', message: `expected an object, got ${kindOf(document)}` }]);
  }
  const { indicator, threat_type, confidence, sources, campaign } = document;
  const timestamp = document['@timestamp'];
  const time = timestampOf(timestamp);
  checkKeyword(issues, 'indicator', indicator, 8_192, true);
  checkKeyword(issues, 'threat_type', threat_type, 256, false);
  const confidenceIssue = confidence === undefined ? undefined : confidenceProblem(confidence);
  if (confidenceIssue !== undefined) issues.push({ path: 'confidence', message: confidenceIssue });
  if (sources !== undefined) {
    if (!Array.isArray(sources) || sources.length > 100) {
      issues.push({ path: 'sources', message: 'expected an array of at most 100 source names' });
    } else {
      for (const [i, item] of sources.entries()) checkKeyword(issues, `sources[${i}]`, item, 256, true);
    }
  }
  if (time === undefined) {
    issues.push({
      path: '@timestamp',
      message: 'expected an ISO 8601 date-time with an offset ("2026-03-01T12:00:00Z") or a valid Date',
    });
  } else if (time < EARLIEST_TIMESTAMP || time > LATEST_TIMESTAMP) {
    issues.push({ path: '@timestamp', message: 'expected a time between 1970 and 9999' });
  }
  checkKeyword(issues, 'campaign', campaign, 1_024, false);
  for (const key in document) {
    if (!FIELD_SET.has(key)) issues.push({ path: key, message: 'unknown field' });
  }
  if (issues.length > 0) throw new ValidationError(subject, issues);
  // The fields in a fixed order; `@timestamp` as toISOString() writes it (kept as given when it is already so).
  const source = { indicator } as StoredSearchDocument;
  if (threat_type !== undefined) source.threat_type = threat_type as string;
  if (confidence !== undefined) source.confidence = confidence as number;
  if (sources !== undefined) source.sources = sources as string[];
  source['@timestamp'] =
    typeof timestamp === 'string' && CANONICAL.test(timestamp) ? timestamp : new Date(time as number).toISOString();
  if (campaign !== undefined) source.campaign = campaign as string;
  return { source, time: time as number };
}

/** A keyword Elasticsearch can index: a non-empty string of at most `max` characters and 32,766 UTF-8 bytes. */
function checkKeyword(
  issues: ConfigurationIssue[],
  path: string,
  value: unknown,
  max: number,
  required: boolean,
): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    issues.push({ path, message: `expected a string of 1 to ${max} characters` });
  } else if (value.length * 3 > MAX_KEYWORD_BYTES && Buffer.byteLength(value) > MAX_KEYWORD_BYTES) {
    issues.push({ path, message: `longer than Elasticsearch indexes (${MAX_KEYWORD_BYTES} bytes)` });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * Every document of a bulk checked and prepared; one invalid document refuses them all.
 *
 * @throws {ValidationError} `Invalid search-index documents: [i].<field>: <reason>; ...` naming every problem.
 */
export function prepareSearchDocuments(documents: readonly unknown[]): PreparedDocument[] {
  if (!Array.isArray(documents)) {
    throw new ValidationError('search-index documents', [{ path: '(root)', message: 'expected an array' }]);
  }
  const issues: ConfigurationIssue[] = [];
  const prepared: PreparedDocument[] = [];
  for (const [i, document] of documents.entries()) {
    try {
      prepared.push(prepareSearchDocument(document));
    } catch (error) {
      if (!ValidationError.isInstance(error)) throw error;
      for (const issue of error.issues) issues.push({ ...issue, path: `[${i}].${issue.path}` });
    }
  }
  if (issues.length > 0) throw new ValidationError('search-index documents', issues.slice(0, 50));
  return prepared;
}
