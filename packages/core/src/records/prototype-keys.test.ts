import { describe, expect, it } from 'vitest';
import { prototypeKeyPath, setOwn } from './prototype-keys.js';

describe('setOwn', () => {
  it('sets "__proto__" as an own key, leaving the prototype alone', () => {
    const out: Record<string, unknown> = {};
    setOwn(out, '__proto__', { admin: true });
    setOwn(out, 'constructor', 1);
    expect(Object.keys(out)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.admin).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"__proto__":{"admin":true},"constructor":1}');
  });
});

describe('prototypeKeyPath', () => {
  it('finds the first such key in plain objects and arrays, naming where', () => {
    expect(prototypeKeyPath(JSON.parse('{"a":[1,{"b":{"__proto__":{}}}]}'))).toBe('a[1].b.__proto__');
    expect(prototypeKeyPath({ a: { constructor: 1 } })).toBe('a.constructor');
    expect(prototypeKeyPath([{ prototype: 1 }])).toBe('[0].prototype');
    expect(prototypeKeyPath({ a: { constructor: 1 } }, new Set(['__proto__']))).toBeUndefined();
    expect(prototypeKeyPath({ proto: 1, constructors: [] })).toBeUndefined();
  });

  it('does not look into class instances or functions, ends at cycles, and does not recurse', () => {
    // An instance of some class (its prototype is not Object.prototype): its own keys are its business.
    const instance = Object.assign(Object.create({ kind: 'options' }), { prototype: 1 });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(prototypeKeyPath({ instance, fn: () => 1 })).toBeUndefined();
    expect(prototypeKeyPath(cyclic)).toBeUndefined();
    const deep = JSON.parse(`${'{"a":'.repeat(100_000)}{"__proto__":1}${'}'.repeat(100_000)}`);
    expect(prototypeKeyPath(deep)?.endsWith('a.__proto__')).toBe(true);
  });
});
