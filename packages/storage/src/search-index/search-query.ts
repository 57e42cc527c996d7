import type { estypes } from '@elastic/elasticsearch';
import { type ConfigurationIssue, ValidationError } from '@threatlib/core';
import type { FieldKind } from './index-mappings.js';
import { timestampOf } from './search-document.js';

/**
 * A search over a search index's documents, in a small part of Elasticsearch's query DSL: `term`, `terms`, `range`,
 * `exists`, `match_all` and `bool` of those, on the mapped fields only.
 *
 * @example
 * ```ts
 * { bool: { filter: [{ term: { threat_type: 'malware' } }, { range: { confidence: { gte: 80 } } }] } }
 * ```
 */
export type SearchQuery = Record<string, unknown>;

/** Options of a search besides its query. */
export interface SearchOptions {
  /** Documents to return (default 100, at most the store's `maxResults`). */
  size?: number;
  /** Documents to skip (`from` + `size` at most 10,000, Elasticsearch's result window). */
  from?: number;
  /** Fields to sort by, in order: `{confidence: 'desc'}`, a field name, a list; newest first by default. */
  sort?: string | Record<string, 'asc' | 'desc'> | Array<string | Record<string, 'asc' | 'desc'>>;
}

/** The query clauses a search may use. */
export const QUERY_CLAUSES: readonly string[] = ['bool', 'term', 'terms', 'range', 'exists', 'match_all'];

/** How large a query may be: larger ones are refused before anything is sent. */
export const QUERY_LIMITS = Object.freeze({
  /** `bool` clauses nested in one another. */
  maxDepth: 8,
  /** Clauses in the whole query. */
  maxClauses: 256,
  /** Values of one `terms`. */
  maxTerms: 1_000,
  /** Characters of one keyword value. */
  maxValueLength: 8_192,
  /** Elasticsearch's default result window: `from` + `size`. */
  maxWindow: 10_000,
});

/** Clauses refused with a reason of their own. */
const REFUSED_CLAUSES: Readonly<Record<string, string>> = {
  script: 'it runs a script on the server',
  script_score: 'it runs a script on the server',
  function_score: 'it can run scripts on the server',
  percolate: 'it runs stored queries',
  query_string: 'it parses a query language of its own',
  simple_query_string: 'it parses a query language of its own',
  wildcard: 'pattern queries are not allowed',
  regexp: 'pattern queries are not allowed',
  prefix: 'pattern queries are not allowed',
  fuzzy: 'pattern queries are not allowed',
};

const BOOL_OCCURRENCES = ['must', 'filter', 'should', 'must_not'] as const;
const RANGE_BOUNDS = ['gt', 'gte', 'lt', 'lte'] as const;
// Elasticsearch date math anchored at now: `now`, `now-7d`, `now-1h/h`. Evaluated by the server; no script.
const DATE_MATH = /^now(?:[+-]\d{1,6}[yMwdhHms])*(?:\/[yMwdhHms])?$/;

class Checker {
  readonly issues: ConfigurationIssue[] = [];
  clauses = 0;

  constructor(readonly fields: Readonly<Record<string, FieldKind>>) {}

  refuse(path: string, message: string): undefined {
    if (this.issues.length < 20) this.issues.push({ path: path || '(root)', message });
    return undefined;
  }

  clause(value: unknown, path: string, depth: number): estypes.QueryDslQueryContainer | undefined {
    this.clauses += 1;
    if (this.clauses > QUERY_LIMITS.maxClauses) {
      return this.refuse(path, `more than ${QUERY_LIMITS.maxClauses} clauses in one query`);
    }
    if (!isPlainObject(value)) return this.refuse(path, `expected a query clause (an object), got ${kindOf(value)}`);
    const keys = Object.keys(value);
    if (keys.length !== 1) {
      return this.refuse(path, `expected one clause (${QUERY_CLAUSES.join(', ')}), got ${keys.length} keys`);
    }
    const name = keys[0] as string;
    const body = value[name];
    const at = path ? `${path}.${name}` : name;
    switch (name) {
      case 'bool':
        return this.bool(body, at, depth);
      case 'term':
        return this.term(body, at);
      case 'terms':
        return this.terms(body, at);
      case 'range':
        return this.range(body, at);
      case 'exists': {
        if (!isPlainObject(body) || Object.keys(body).length !== 1 || typeof body.field !== 'string') {
          return this.refuse(at, 'expected {field: "<field>"}');
        }
        const field = this.field(body.field, `${at}.field`);
        return field === undefined ? undefined : { exists: { field } };
      }
      case 'match_all':
        if (!isPlainObject(body) || Object.keys(body).length > 0) return this.refuse(at, 'expected {}');
        return { match_all: {} };
      default: {
        const why = Object.hasOwn(REFUSED_CLAUSES, name) ? REFUSED_CLAUSES[name] : 'it is not on the allowlist';
        return this.refuse(at, `"${name}" is refused: ${why} (allowed: ${QUERY_CLAUSES.join(', ')})`);
      }
    }
  }

  bool(body: unknown, at: string, depth: number): estypes.QueryDslQueryContainer | undefined {
    if (depth >= QUERY_LIMITS.maxDepth) return this.refuse(at, `bool nested deeper than ${QUERY_LIMITS.maxDepth}`);
    if (!isPlainObject(body)) return this.refuse(at, `expected {must, filter, should, must_not}, got ${kindOf(body)}`);
    const out: estypes.QueryDslBoolQuery = {};
    for (const [key, value] of Object.entries(body)) {
      if ((BOOL_OCCURRENCES as readonly string[]).includes(key)) {
        const list = Array.isArray(value) ? value : [value];
        const clauses = list.map((item, i) =>
          this.clause(item, Array.isArray(value) ? `${at}.${key}[${i}]` : `${at}.${key}`, depth + 1),
        );
        out[key as (typeof BOOL_OCCURRENCES)[number]] = clauses.filter((c) => c !== undefined);
      } else if (key === 'minimum_should_match') {
        if (!Number.isSafeInteger(value) || (value as number) < 0) {
          this.refuse(`${at}.${key}`, 'expected a whole number, 0 or more');
        } else out.minimum_should_match = value as number;
      } else {
        this.refuse(
          `${at}.${key}`,
          `unknown key (allowed: ${[...BOOL_OCCURRENCES, 'minimum_should_match'].join(', ')})`,
        );
      }
    }
    return { bool: out };
  }

  term(body: unknown, at: string): estypes.QueryDslQueryContainer | undefined {
    const entry = this.singleField(body, at);
    if (entry === undefined) return undefined;
    const [field, raw] = entry;
    let given = raw;
    if (isPlainObject(raw)) {
      const keys = Object.keys(raw);
      if (keys.length !== 1 || keys[0] !== 'value') return this.refuse(`${at}.${field}`, 'expected a value or {value}');
      given = raw.value;
    }
    const value = this.value(field, given, `${at}.${field}`);
    return value === undefined ? undefined : { term: { [field]: value } };
  }

  terms(body: unknown, at: string): estypes.QueryDslQueryContainer | undefined {
    const entry = this.singleField(body, at);
    if (entry === undefined) return undefined;
    const [field, list] = entry;
    // An object here would be a terms lookup, which reads another index: refused with the other non-arrays.
    if (!Array.isArray(list) || list.length === 0 || list.length > QUERY_LIMITS.maxTerms) {
      return this.refuse(`${at}.${field}`, `expected an array of 1 to ${QUERY_LIMITS.maxTerms} values`);
    }
    const values = list.map((item, i) => this.value(field, item, `${at}.${field}[${i}]`));
    if (values.some((v) => v === undefined)) return undefined;
    return { terms: { [field]: values as estypes.FieldValue[] } };
  }

  range(body: unknown, at: string): estypes.QueryDslQueryContainer | undefined {
    const entry = this.singleField(body, at);
    if (entry === undefined) return undefined;
    const [field, bounds] = entry;
    const path = `${at}.${field}`;
    if (this.fields[field] === 'keyword') return this.refuse(path, 'range applies to number and date fields');
    if (!isPlainObject(bounds) || Object.keys(bounds).length === 0) {
      return this.refuse(path, `expected bounds {${RANGE_BOUNDS.join(', ')}}`);
    }
    const out: Record<string, estypes.FieldValue> = {};
    for (const [key, given] of Object.entries(bounds)) {
      if (!(RANGE_BOUNDS as readonly string[]).includes(key)) {
        this.refuse(`${path}.${key}`, `unknown key (allowed: ${RANGE_BOUNDS.join(', ')})`);
        continue;
      }
      const value =
        this.fields[field] === 'date' && typeof given === 'string' && DATE_MATH.test(given)
          ? given
          : this.value(field, given, `${path}.${key}`);
      if (value !== undefined) out[key] = value;
    }
    return { range: { [field]: out } };
  }

  /** `{field: value}` with exactly one mapped field. */
  singleField(body: unknown, at: string): [string, unknown] | undefined {
    if (!isPlainObject(body) || Object.keys(body).length !== 1) {
      return this.refuse(at, 'expected exactly one field: {"<field>": ...}');
    }
    const [name, value] = Object.entries(body)[0] as [string, unknown];
    const field = this.field(name, `${at}.${name}`);
    return field === undefined ? undefined : [field, value];
  }

  field(name: string, at: string): string | undefined {
    if (Object.hasOwn(this.fields, name)) return name;
    return this.refuse(
      at,
      `${JSON.stringify(name)} is not a field of this index (${Object.keys(this.fields).join(', ')})`,
    );
  }

  /** A value fit for a field: a string for a keyword, a finite number for a number, a time for a date. */
  value(field: string, value: unknown, at: string): estypes.FieldValue | undefined {
    switch (this.fields[field]) {
      case 'keyword':
        if (typeof value !== 'string' || value.length === 0 || value.length > QUERY_LIMITS.maxValueLength) {
          return this.refuse(at, `expected a string of 1 to ${QUERY_LIMITS.maxValueLength} characters`);
        }
        return value;
      case 'number':
        if (typeof value !== 'number' || !Number.isFinite(value)) return this.refuse(at, 'expected a finite number');
        return value;
      default: {
        const time = timestampOf(value);
        if (time === undefined) {
          return this.refuse(at, 'expected an ISO 8601 date-time with an offset, a Date or date math such as "now-7d"');
        }
        return new Date(time).toISOString();
      }
    }
  }

  sort(sort: SearchOptions['sort']): estypes.SortCombinations[] | undefined {
    if (sort === undefined) return undefined;
    const list = Array.isArray(sort) ? sort : [sort];
    if (list.length === 0 || list.length > 5) return this.refuse('sort', 'expected 1 to 5 fields');
    const out: estypes.SortCombinations[] = [];
    list.forEach((item, i) => {
      const at = Array.isArray(sort) ? `sort[${i}]` : 'sort';
      if (typeof item === 'string') {
        const field = this.field(item, at);
        if (field !== undefined) out.push({ [field]: { order: 'asc' } });
        return;
      }
      if (!isPlainObject(item) || Object.keys(item).length !== 1) {
        this.refuse(at, 'expected a field name or {"<field>": "asc" | "desc"}');
        return;
      }
      const [name, order] = Object.entries(item)[0] as [string, unknown];
      const field = this.field(name, at);
      if (order !== 'asc' && order !== 'desc') this.refuse(`${at}.${name}`, 'expected "asc" or "desc"');
      else if (field !== undefined) out.push({ [field]: { order } });
    });
    return out;
  }
}

/** The search request a query and its options make, ready to send (index aside). */
export interface CheckedSearch {
  query: estypes.QueryDslQueryContainer;
  size: number;
  from: number;
  sort: estypes.SortCombinations[];
}

/**
 * Checks a query against the allowlist and builds the request from what it checked (never from the object given):
 * `term`, `terms`, `range`, `exists`, `match_all` and `bool` of those on the index's mapped fields, values of the
 * field's type, dates as ISO 8601. Scripts, query strings, pattern queries, terms lookups and any other clause or key
 * are refused, so a query that arrives over REST or a queue cannot make the server run code or read other indices.
 *
 * @throws {ValidationError} `Invalid search query: <path>: <reason>; ...` naming every problem (up to 20).
 */
export function checkSearch(
  query: unknown,
  options: SearchOptions = {},
  fields: Readonly<Record<string, FieldKind>>,
  maxResults: number,
  /** The date field results are sorted by, newest first, when `sort` is not given. */
  newestFirstBy = '@timestamp',
): CheckedSearch {
  const checker = new Checker(fields);
  if (!isPlainObject(options)) {
    checker.refuse('(options)', `expected {size, from, sort}, got ${kindOf(options)}`);
    options = {};
  }
  for (const key of Object.keys(options)) {
    if (!['size', 'from', 'sort'].includes(key)) checker.refuse(key, 'unknown option (allowed: size, from, sort)');
  }
  const built = query === undefined ? { match_all: {} } : checker.clause(query, '', 0);
  const size = options.size ?? Math.min(100, maxResults);
  const from = options.from ?? 0;
  if (!Number.isSafeInteger(size) || size < 0 || size > maxResults) {
    checker.refuse('size', `expected a whole number from 0 to ${maxResults}`);
  }
  if (!Number.isSafeInteger(from) || from < 0 || from + size > QUERY_LIMITS.maxWindow) {
    checker.refuse('from', `expected a whole number, 0 or more, with from + size at most ${QUERY_LIMITS.maxWindow}`);
  }
  const sort = checker.sort(options.sort) ?? [{ [newestFirstBy]: { order: 'desc' } }];
  if (checker.issues.length > 0 || built === undefined) throw new ValidationError('search query', checker.issues);
  return { query: built, size, from, sort };
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
