import { describe, expect, it } from 'vitest';
import { checkJsonStructure } from './json-structure.js';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('checkJsonStructure', () => {
  it('accepts nesting up to the limit and refuses one level more, with where', () => {
    expect(checkJsonStructure(nested(32), 32)).toBeUndefined();
    expect(checkJsonStructure(nested(33), 32)).toEqual({ kind: 'too-deep', limit: 32, path: Array(32).fill(0) });
    expect(checkJsonStructure(nestedObjects(32), 32)).toBeUndefined();
    expect(checkJsonStructure(`{"x":[1,{"b":${nestedObjects(31)}}]}`, 32)).toMatchObject({
      kind: 'too-deep',
      path: ['x', 1, 'b', ...Array(29).fill('a')],
    });
  });

  it('walks a text nested a million deep without overflowing the stack', () => {
    expect(checkJsonStructure(nested(1_000_000), 32)?.kind).toBe('too-deep');
    expect(checkJsonStructure(nested(1_000_000, '{"":', '}'), 64)?.kind).toBe('too-deep');
  });

  it('finds a key an object has twice, decoded, and says where the object is', () => {
    expect(checkJsonStructure('{"a":1,"a":2}', 32)).toEqual({ kind: 'duplicate-key', key: 'a', path: [] });
    expect(checkJsonStructure('{"m":{"x":[{"k":1,"\\u006b":2}]}}', 32)).toEqual({
      kind: 'duplicate-key',
      key: 'k',
      path: ['m', 'x', 0],
    });
    expect(checkJsonStructure('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}', 32)).toBeUndefined();
  });

  it('does not take string values, escaped quotes or keys of other objects for keys', () => {
    expect(checkJsonStructure('{"a":"a","b":"\\"a\\":1,","c":["a","a"]}', 32)).toBeUndefined();
    expect(checkJsonStructure('{"a\\\\":1,"a":2}', 32)).toBeUndefined();
    expect(checkJsonStructure('{"a\\\\":1,"a\\\\":2}', 32)).toMatchObject({ key: 'a\\' });
    expect(checkJsonStructure('{"[[[[":"{{{{","x":"]]]]"}', 2)).toBeUndefined();
  });

  it('does not throw on text that is not JSON (the parser refuses it)', () => {
    for (const text of ['{"a', '{"a\\', '{"\\u12":1,"x":2}', '}}]]', '', '"', '{"a":1,"a"']) {
      expect(() => checkJsonStructure(text, 32)).not.toThrow();
    }
  });
});
