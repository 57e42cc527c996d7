import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipv4ToNumber } from './ip-range.js';

describe('ipv4ToNumber', () => {
  it('reads every dotted quad as the number its octets make', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), (octets) => {
        const expected = octets.reduce((value, octet) => value * 256 + octet, 0);
        expect(ipv4ToNumber(octets.join('.'))).toBe(expected);
      }),
    );
    expect(ipv4ToNumber('255.255.255.255')).toBe(0xffffffff);
    expect(ipv4ToNumber('0.0.0.0')).toBe(0);
  });
});
