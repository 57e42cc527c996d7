import { ValidationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { checkFilter, FILTER_LIMITS } from './filter-allowlist.js';

function refusal(filter: unknown): ValidationError {
  try {
    checkFilter(filter);
  } catch (error) {
    expect(ValidationError.isInstance(error)).toBe(true);
    return error as ValidationError;
  }
  throw new Error(`expected ${JSON.stringify(filter)} to be refused`);
}

describe('checkFilter allows', () => {
  it('the documented filter, converting the ISO date of scanDate to a Date', () => {
    const filter = { 'results.confidence': { $gte: 80 }, scanDate: { $gte: '2026-03-01T00:00:00.000Z' } };
    expect(checkFilter(filter)).toEqual({
      'results.confidence': { $gte: 80 },
      scanDate: { $gte: new Date('2026-03-01T00:00:00.000Z') },
    });
  });

  it('every comparison operator, and the logical ones nested', () => {
    const filter = {
      $and: [
        { indicator: { $eq: 'a.example' } },
        { $or: [{ 'results.verdict': { $in: ['malicious', 'suspicious'] } }, { 'results.consensus': { $gt: 1 } }] },
        { $nor: [{ 'results.confidence': { $lt: 10 } }, { 'results.confidence': { $lte: 0 } }] },
      ],
      'results.type': { $ne: 'url', $nin: ['md5', 'sha1'] },
      'results.warninglist': { $exists: false },
      'results.riskScore': { $not: { $gte: 9 } },
      lastSeen: { $in: ['2026-03-01T00:00:00Z', new Date(0)] },
    };
    expect(checkFilter(filter)).toEqual({
      ...filter,
      lastSeen: { $in: [new Date('2026-03-01T00:00:00Z'), new Date(0)] },
    });
  });

  it('equality with a value, a date field compared to an ISO string, an embedded document', () => {
    expect(checkFilter({ indicator: 'x.example', firstSeen: '2026-01-02', results: { verdict: 'clean' } })).toEqual({
      indicator: 'x.example',
      firstSeen: new Date('2026-01-02'),
      results: { verdict: 'clean' },
    });
  });

  it('returns a copy: changing the filter given afterwards changes nothing', () => {
    const filter = { 'results.confidence': { $in: [1, 2] } };
    const checked = checkFilter(filter);
    filter['results.confidence'].$in.push(3);
    expect(checked).toEqual({ 'results.confidence': { $in: [1, 2] } });
  });
});

describe('checkFilter refuses, naming the key and where it is', () => {
  it.each([
    [{ $where: 'sleep(100)' }, '$where', /\$where is refused: it runs JavaScript on the server/],
    [
      { 'results.confidence': { $function: { body: 'function() { return true }', args: [], lang: 'js' } } },
      'results.confidence.$function',
      /\$function is refused: it runs JavaScript/,
    ],
    [{ $expr: { $gt: ['$a', '$b'] } }, '$expr', /\$expr is refused: it evaluates aggregation expressions/],
    [{ x: { $accumulator: {} } }, 'x.$accumulator', /\$accumulator is refused/],
    [{ $and: [{ a: 1 }, { $or: [{ $where: 'true' }] }] }, '$and[1].$or[0].$where', /\$where is refused/],
    [{ a: { $not: { $where: 'x' } } }, 'a.$not.$where', /\$where is refused/],
    [{ a: { $eq: { $where: 'x' } } }, 'a.$eq.$where', /\$where is refused/],
    [{ a: { $in: [{ b: { $function: 1 } }] } }, 'a.$in[0].b.$function', /\$function is refused/],
    [{ a: { $regex: '^(a+)+$' } }, 'a.$regex', /\$regex is not an allowed operator on a field; allowed here: \$eq/],
    [{ $text: { $search: 'x' } }, '$text', /\$text is not an allowed operator where a filter is; allowed here: \$and/],
    [{ $comment: 'x' }, '$comment', /not an allowed operator/],
    [{ a: { $gte: 1, b: 2 } }, 'a.b', /"b" is a field name among operators/],
    [{ 'a.$where': 1 }, 'a.$where', /\$where is refused/],
    [{ a: { $exists: 'yes' } }, 'a.$exists', /expected true or false/],
    [{ $or: [] }, '$or', /non-empty array of filters/],
    [{ $and: { a: 1 } }, '$and', /expected an array of filters/],
    [{ a: { $in: 'x' } }, 'a.$in', /expected an array of values/],
    [{ a: { $not: 5 } }, 'a.$not', /expected an object of operators/],
    [{ scanDate: { $gte: 'last week' } }, 'scanDate.$gte', /scanDate is a date: expected an ISO 8601 date-time/],
    [{ a: /x/ }, 'a', /got a regular expression/],
    [{ a: () => 1 }, 'a', /got function/],
    [{ a: Number.NaN }, 'a', /finite number/],
    [{ '': 1 }, '(root)', /empty field name/],
    [[{ a: 1 }], '(root)', /expected a filter object, got an array/],
    ['$where', '(root)', /expected a filter object/],
  ])('%j → %s', (filter, path, message) => {
    const error = refusal(filter);
    expect(error.issues).toEqual([{ path, message: expect.stringMatching(message) }]);
    expect(error.message).toContain(`Invalid storage filter: ${path}: `);
  });

  it('a class instance smuggled in as a value (a BSON Code object, say)', () => {
    class Code {
      code = 'sleep(100)';
    }
    expect(refusal({ a: { $eq: new Code() } }).issues[0]?.message).toMatch(/got a Code/);
  });

  it('a filter nested past the depth limit, without overflowing the stack however deep', () => {
    let deep: Record<string, unknown> = { a: 1 };
    for (let i = 0; i < 100_000; i++) deep = { $and: [deep] };
    expect(refusal(deep).issues[0]?.message).toMatch(`nested deeper than ${FILTER_LIMITS.maxDepth} levels`);
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = { v: value };
    expect(refusal({ a: value }).issues[0]?.message).toMatch(/nested deeper/);
  });

  it('a filter with too many values, or one array too long', () => {
    const wide = Object.fromEntries(Array.from({ length: FILTER_LIMITS.maxNodes }, (_, i) => [`f${i}`, { $eq: i }]));
    expect(refusal(wide).issues[0]?.message).toMatch(`more than ${FILTER_LIMITS.maxNodes} keys and values`);
    const long = Array.from({ length: FILTER_LIMITS.maxArray + 1 }, (_, i) => i);
    expect(refusal({ a: { $in: long } }).issues[0]?.message).toMatch(`more than ${FILTER_LIMITS.maxArray} values`);
  });
});

// Issue 21, finding 4: JSON.parse makes "__proto__" an ordinary key; a copy made by assignment turned it into the
// copy's prototype, so `{"__proto__": {"severity": "high"}}` came back as `{}` and matched every record.
describe('checkFilter refuses keys that name an object’s prototype, anywhere', () => {
  it.each([
    ['{"__proto__":{"severity":"high"}}', '__proto__'],
    ['{"$or":[{"__proto__":{"severity":"high"}}]}', '$or[0].__proto__'],
    ['{"$and":[{"indicator":"a.example"},{"__proto__":{"severity":"high"}}]}', '$and[1].__proto__'],
    ['{"$nor":[{"$or":[{"constructor":{"prototype":1}}]}]}', '$nor[0].$or[0].constructor'],
    ['{"prototype":1}', 'prototype'],
    ['{"results.__proto__.severity":"high"}', 'results.__proto__.severity'],
    ['{"results.constructor":"x"}', 'results.constructor'],
    ['{"severity":{"__proto__":{"$gte":1}}}', 'severity.__proto__'],
    ['{"severity":{"$gte":1,"constructor":2}}', 'severity.constructor'],
    ['{"results":{"__proto__":{"verdict":"clean"}}}', 'results.__proto__'],
    ['{"results":{"a":[{"b":{"prototype":{}}}]}}', 'results.a[0].b.prototype'],
    ['{"tags":{"$in":[{"__proto__":{}}]}}', 'tags.$in[0].__proto__'],
  ])('%s', (json, path) => {
    const error = refusal(JSON.parse(json));
    expect(error.issues[0]?.path).toBe(path);
    expect(error.message).toMatch(/is refused: it names an object's prototype, not a field/);
  });

  it('never returns a filter that matches more than the one given', () => {
    const before = refusal(JSON.parse('{"__proto__":{"severity":"high"}}'));
    expect(before.issues).toHaveLength(1);
    // A field whose name merely contains those words is a field like any other.
    expect(checkFilter({ proto: 1, constructors: 2, 'results.prototypeCount': 3 })).toEqual({
      proto: 1,
      constructors: 2,
      'results.prototypeCount': 3,
    });
  });

  it('builds its copy of objects without a prototype', () => {
    const checked = checkFilter({ $or: [{ results: { verdict: 'clean' } }], severity: { $in: ['high'] } });
    expect(Object.getPrototypeOf(checked)).toBeNull();
    expect(Object.getPrototypeOf((checked.$or as Array<Record<string, unknown>>)[0]?.results)).toBeNull();
    expect(Object.getPrototypeOf(checked.severity)).toBeNull();
  });
});
