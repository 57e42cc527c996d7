import { ValidationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { THREAT_FIELDS } from './index-mappings.js';
import { checkSearch, QUERY_LIMITS } from './search-query.js';

const check = (query: unknown, options: object = {}) => checkSearch(query, options, THREAT_FIELDS, 1_000);

function refusal(query: unknown, options: object = {}): ValidationError {
  try {
    check(query, options);
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be refused`);
}

describe('checkSearch: what a search may ask', () => {
  it('builds term, terms, range, exists, match_all and bool on the mapped fields, newest first by default', () => {
    const checked = check({
      bool: {
        filter: [
          { term: { threat_type: 'malware' } },
          { term: { indicator: { value: 'evil.example' } } },
          { terms: { sources: ['feed_otx', 'feed_abuse'] } },
          { range: { confidence: { gte: 80, lt: 100 } } },
          { range: { '@timestamp': { gte: '2026-03-01T13:00:00+01:00', lte: 'now-1h/h' } } },
          { exists: { field: 'campaign' } },
        ],
        must_not: { term: { threat_type: 'benign' } },
        should: [{ match_all: {} }],
        minimum_should_match: 1,
      },
    });
    expect(checked).toEqual({
      query: {
        bool: {
          filter: [
            { term: { threat_type: 'malware' } },
            { term: { indicator: 'evil.example' } },
            { terms: { sources: ['feed_otx', 'feed_abuse'] } },
            { range: { confidence: { gte: 80, lt: 100 } } },
            // Times become ISO 8601 in UTC; date math anchored at now goes as written.
            { range: { '@timestamp': { gte: '2026-03-01T12:00:00.000Z', lte: 'now-1h/h' } } },
            { exists: { field: 'campaign' } },
          ],
          must_not: [{ term: { threat_type: 'benign' } }],
          should: [{ match_all: {} }],
          minimum_should_match: 1,
        },
      },
      size: 100,
      from: 0,
      sort: [{ '@timestamp': { order: 'desc' } }],
    });
  });

  it('no query is match_all; size, from and sort are taken when in bounds', () => {
    expect(check(undefined, { size: 5, from: 10, sort: [{ confidence: 'desc' }, 'indicator'] })).toEqual({
      query: { match_all: {} },
      size: 5,
      from: 10,
      sort: [{ confidence: { order: 'desc' } }, { indicator: { order: 'asc' } }],
    });
  });

  it('the request is built from what was checked: a key added beside a clause never reaches it', () => {
    const query = { range: { confidence: { gte: 50 } } };
    const checked = check(query);
    expect(checked.query).not.toBe(query);
    expect(checked.query).toEqual({ range: { confidence: { gte: 50 } } });
  });
});

describe('checkSearch: what it refuses, naming where', () => {
  it.each([
    [{ script: { script: { source: 'Thread.sleep(100)' } } }, 'script', /runs a script on the server/],
    [{ script_score: { query: { match_all: {} }, script: { source: '1' } } }, 'script_score', /runs a script/],
    [{ function_score: { functions: [] } }, 'function_score', /can run scripts/],
    [{ query_string: { query: '*' } }, 'query_string', /query language/],
    [{ simple_query_string: { query: '*' } }, 'simple_query_string', /query language/],
    [{ wildcard: { indicator: '*evil*' } }, 'wildcard', /pattern queries/],
    [{ regexp: { indicator: '(a+)+$' } }, 'regexp', /pattern queries/],
    [{ prefix: { indicator: 'ev' } }, 'prefix', /pattern queries/],
    [{ match: { indicator: 'evil' } }, 'match', /not on the allowlist/],
    [{ nested: { path: 'x', query: { match_all: {} } } }, 'nested', /not on the allowlist/],
    [{ percolate: { field: 'q', document: {} } }, 'percolate', /stored queries/],
  ])('%j is refused at %s', (query, path, reason) => {
    const error = refusal(query);
    expect(error.issues[0]?.path).toBe(path);
    expect(error.issues[0]?.message).toMatch(reason);
    expect(error.message).toMatch(/^Invalid search query: /);
  });

  it('refuses a script deep in a bool, and every other problem of the query at once', () => {
    const error = refusal({
      bool: {
        must: [{ term: { indicator: 'a' } }, { script: { script: 'true' } }],
        filter: { range: { confidence: { gte: 'high' } } },
        boost: 2,
      },
    });
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'bool.must[1].script',
      'bool.filter.range.confidence.gte',
      'bool.boost',
    ]);
  });

  it('refuses a terms lookup (values read from a document of any index)', () => {
    const error = refusal({ terms: { indicator: { index: 'secrets', id: '1', path: 'password' } } });
    expect(error.issues).toEqual([{ path: 'terms.indicator', message: 'expected an array of 1 to 1000 values' }]);
  });

  it('refuses fields the mapping does not have, keys a clause does not take, and values of the wrong type', () => {
    expect(refusal({ term: { 'results.confidence': 90 } }).issues[0]?.path).toBe('term.results.confidence');
    expect(refusal({ term: { _index: 'secrets' } }).issues[0]?.path).toBe('term._index');
    expect(refusal({ exists: { field: '_source' } }).issues[0]?.path).toBe('exists.field');
    expect(refusal({ term: { indicator: { value: 'a', boost: 2 } } }).issues[0]?.path).toBe('term.indicator');
    expect(refusal({ term: { indicator: 'a', threat_type: 'b' } }).issues[0]?.path).toBe('term');
    expect(refusal({ range: { confidence: { gte: 1, format: 'x' } } }).issues[0]?.path).toBe('range.confidence.format');
    expect(refusal({ range: { indicator: { gte: 'a' } } }).issues[0]?.message).toMatch(/number and date fields/);
    expect(refusal({ term: { confidence: '90' } }).issues[0]?.message).toBe('expected a finite number');
    expect(refusal({ term: { '@timestamp': 'yesterday' } }).issues[0]?.path).toBe('term.@timestamp');
    expect(refusal({ term: { indicator: 'a' }, bool: {} }).issues[0]?.path).toBe('(root)');
    expect(refusal(JSON.parse('{"__proto__": {"match_all": {}}}')).issues[0]?.path).toBe('__proto__');
    expect(refusal('indicator:evil').issues[0]?.message).toMatch(/expected a query clause/);
  });

  it('refuses queries past the limits: depth, clauses, terms', () => {
    let deep: object = { match_all: {} };
    for (let i = 0; i < QUERY_LIMITS.maxDepth + 1; i++) deep = { bool: { must: deep } };
    expect(refusal(deep).issues[0]?.message).toMatch(/nested deeper than 8/);
    const wide = { bool: { should: Array.from({ length: QUERY_LIMITS.maxClauses + 1 }, () => ({ match_all: {} })) } };
    expect(refusal(wide).issues[0]?.message).toMatch(/more than 256 clauses/);
    const many = { terms: { indicator: Array.from({ length: QUERY_LIMITS.maxTerms + 1 }, (_, i) => `h${i}`) } };
    expect(refusal(many).issues[0]?.path).toBe('terms.indicator');
  });

  it('refuses options it does not know (an index among them) and sizes past the limits', () => {
    expect(refusal(undefined, { index: 'secrets' }).issues).toEqual([
      { path: 'index', message: 'unknown option (allowed: size, from, sort)' },
    ]);
    expect(refusal(undefined, { size: 1_001 }).issues[0]?.path).toBe('size');
    expect(refusal(undefined, { size: 1_000, from: 9_500 }).issues[0]?.path).toBe('from');
    expect(refusal(undefined, { sort: { results: 'desc' } }).issues[0]?.path).toBe('sort');
    expect(refusal(undefined, { sort: { confidence: 'up' } }).issues[0]?.path).toBe('sort.confidence');
  });
});
