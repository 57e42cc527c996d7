import { describe, expect, it } from 'vitest';
import { closestOption } from './closest-option.js';

describe('closestOption', () => {
  it('suggests an option that differs in case or by a typo, and nothing for a far one', () => {
    const known = ['port', 'host', 'authentication', 'rateLimit', 'windowMs', 'max'];
    expect(closestOption('windowMS', known)).toBe('windowMs');
    expect(closestOption('ratelimit', known)).toBe('rateLimit');
    expect(closestOption('authentcation', known)).toBe('authentication');
    expect(closestOption('prot', known)).toBe('port');
    expect(closestOption('timeout', known)).toBeUndefined();
    expect(closestOption('x'.repeat(10_000), known)).toBeUndefined();
  });

  it('compares names without separators, and allows more edits to longer names', () => {
    expect(closestOption('max_concurrency', ['maxConcurrency', 'requestTimeout'])).toBe('maxConcurrency');
    expect(closestOption('window-ms', ['windowMs'])).toBe('windowMs');
    // Three edits at more than eight characters, two up to eight, one up to four.
    expect(closestOption('performnce', ['performance'])).toBe('performance');
    expect(closestOption('requsttimout', ['requestTimeout'])).toBe('requestTimeout');
    expect(closestOption('tokn', ['tokens'])).toBeUndefined();
    // The nearest wins; among equals, the first given.
    expect(closestOption('maxx', ['max', 'maxy'])).toBe('max');
  });
});
