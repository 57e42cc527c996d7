import { describe, expect, it } from 'vitest';
import { AlertDedupe } from './alert-dedupe.js';

describe('AlertDedupe', () => {
  it('admits a key once per window, and again once the window has passed', () => {
    const dedupe = new AlertDedupe(1_000);
    expect(dedupe.admit('a', 0)).toBe(true);
    expect(dedupe.admit('a', 999)).toBe(false);
    expect(dedupe.admit('b', 999)).toBe(true);
    expect(dedupe.admit('a', 1_000)).toBe(true);
    expect(dedupe.admit('a', 1_500)).toBe(false);
  });

  it('forget lets a key raise again within its window', () => {
    const dedupe = new AlertDedupe(1_000);
    expect(dedupe.admit('a', 0)).toBe(true);
    dedupe.forget('a');
    expect(dedupe.admit('a', 10)).toBe(true);
    expect(dedupe.admit('a', 20)).toBe(false);
  });

  it('a window of 0 admits every time and remembers nothing', () => {
    const dedupe = new AlertDedupe(0);
    expect([dedupe.admit('a', 0), dedupe.admit('a', 0)]).toEqual([true, true]);
    expect(dedupe.size).toBe(0);
  });

  it('forgets keys whose window passed, and holds at most maxKeys', () => {
    const dedupe = new AlertDedupe(1_000, 3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) dedupe.admit(key, i);
    expect(dedupe.size).toBe(3);
    dedupe.admit('d', 10);
    expect(dedupe.size).toBe(3);
    // 'a' was forgotten to make room: it raises again (the safe side).
    expect(dedupe.admit('a', 11)).toBe(true);
    dedupe.admit('e', 5_000);
    expect(dedupe.size).toBe(1);
  });
});
