import { describe, expect, it } from 'vitest';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { indicatorForOutput } from './indicator-for-output.js';

function refusal(type: unknown, value: unknown): InvalidIndicatorError {
  try {
    indicatorForOutput(type, value);
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('indicatorForOutput', () => {
  it('gives the normalised value of one indicator of its type', () => {
    expect(indicatorForOutput('ipv4', '198.51.100.7')).toBe('198.51.100.7');
    expect(indicatorForOutput('ipv6', '2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(indicatorForOutput('domain', 'Evil.COM')).toBe('evil.com');
    expect(indicatorForOutput('sha256', 'A'.repeat(64))).toBe('a'.repeat(64));
  });

  it('refuses a second line, naming the value with the line break escaped', () => {
    const error = refusal('ipv4', '198.51.100.7\n0.0.0.0/0');
    expect(error.message).toBe(
      'Invalid indicator "198.51.100.7\\n0.0.0.0/0": contains whitespace (U+000A); an indicator is a single token',
    );
    expect(error.input).toBe('198.51.100.7\n0.0.0.0/0');
  });

  it.each([
    ['NUL', '198.51.100.7\u00000.0.0.0'],
    ['NEL', 'evil.example\u0085other.example'],
    ['LINE SEPARATOR', 'evil.example\u2028other.example'],
    ['PARAGRAPH SEPARATOR', 'evil.example\u2029other.example'],
    ['a tab', 'evil.example\tother.example'],
    ['DEL', 'evil.example\u007f'],
  ])('refuses a value with %s, and the message stays one line', (_name, value) => {
    const error = refusal('domain', value);
    expect(error.message).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
  });

  it('refuses a CIDR range, a value of another type, an alias type, a non-string', () => {
    expect(refusal('ipv4', '0.0.0.0/0').reason).toMatch(/ipv4/);
    expect(refusal('ipv4', 'evil.example').reason).toMatch(/ipv4/);
    expect(refusal('ip', '198.51.100.7').reason).toMatch(/unknown indicator type "ip"/);
    expect(refusal('__proto__', '198.51.100.7').reason).toMatch(/unknown indicator type "__proto__"/);
    expect(refusal('ipv4', 42).reason).toMatch(/expected a string/);
    expect(refusal('ipv4', Object.create(null)).reason).toMatch(/expected a string/);
  });

  it('refuses a huge value without quoting it whole', () => {
    const error = refusal('domain', `${'a'.repeat(10_000_000)}\n0.0.0.0/0`);
    expect(error.message.length).toBeLessThan(400);
  });
});
