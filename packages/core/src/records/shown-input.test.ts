import { describe, expect, it } from 'vitest';
import { shownInput } from './shown-input.js';

describe('shownInput', () => {
  it('quotes a string, cut to 100 characters', () => {
    expect(shownInput('address')).toBe('"address"');
    expect(shownInput('a"b')).toBe('"a\\"b"');
    expect(shownInput('x'.repeat(5_000_000))).toBe(`"${'x'.repeat(100)}…"`);
  });

  it('escapes every control and line-separator character, so a message quoting it stays one line', () => {
    expect(shownInput('a\nb\u0000c\u0085d\u2028e\u2029f\u007f')).toBe('"a\\nb\\u0000c\\u0085d\\u2028e\\u2029f\\u007f"');
  });

  it('shows numbers, booleans and null as they are, anything else by its kind', () => {
    expect([42, true, null, undefined, 10n].map(shownInput)).toEqual(['42', 'true', 'null', 'nothing', 'a bigint']);
    expect(shownInput({ a: 1 })).toBe('an object');
  });

  it('does not walk a value nested far past the stack', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(shownInput(deep)).toBe('an array');
  });
});
