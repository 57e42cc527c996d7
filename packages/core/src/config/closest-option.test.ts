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
});
