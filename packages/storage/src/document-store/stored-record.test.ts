import { ValidationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { storableRecord } from './stored-record.js';

function refusal(record: unknown): ValidationError {
  try {
    storableRecord(record, 'threat record');
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('not refused');
}

// Issue 21, finding 4: a record's copy was made by assignment, so a "__proto__" key (an ordinary key in parsed JSON)
// became the copy's prototype: its fields were not stored, yet a reader of the copy saw them as inherited ones.
describe('storableRecord and "__proto__"', () => {
  it.each([
    ['{"indicator":"evil.com","__proto__":{"verdict":"clean"}}', '__proto__'],
    ['{"indicator":"evil.com","results":{"__proto__":{"verdict":"clean"}}}', 'results.__proto__'],
    ['{"indicator":"evil.com","results":{"feeds":[{"__proto__":{}}]}}', 'results.feeds[0].__proto__'],
  ])('refuses %s, naming where', (json, path) => {
    const error = refusal(JSON.parse(json));
    expect(error.issues).toEqual([{ path, message: expect.stringContaining('"__proto__" is refused') }]);
  });

  it('stores "constructor" and "prototype" as the fields they are', () => {
    const record = JSON.parse('{"indicator":"evil.com","results":{"constructor":{"prototype":{"x":1}}}}');
    const stored = storableRecord(record, 'threat record');
    expect(JSON.parse(JSON.stringify(stored))).toEqual(record);
    expect(Object.keys(stored.results as object)).toEqual(['constructor']);
    expect(Object.getPrototypeOf(stored.results)).toBe(Object.prototype);
  });
});
