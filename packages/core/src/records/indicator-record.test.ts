import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { IndicatorRefSchema, IndicatorSchema } from './indicator-record.js';
import { parseRecord } from './parse-record.js';

const parse = (value: unknown) => parseRecord(IndicatorSchema, value, 'indicator');
const problem = (value: unknown) => {
  try {
    parse(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).message;
  }
  throw new Error('expected a ValidationError');
};

describe('IndicatorSchema', () => {
  it.each([
    [
      { type: 'domain', value: 'Evil-Example.COM' },
      { type: 'domain', value: 'evil-example.com' },
    ],
    [
      { type: 'ip', value: '8.8.8.8', confidence: 90 },
      { type: 'ipv4', value: '8.8.8.8', confidence: 90 },
    ],
    [
      { type: 'ip', value: '2001:DB8::1', source: 'siem' },
      { type: 'ipv6', value: '2001:db8::1', source: 'siem' },
    ],
    [
      { type: 'hostname', value: 'evil[.]com' },
      { type: 'domain', value: 'evil.com' },
    ],
    [
      { type: 'ipv4', value: '198.51.100.7' },
      { type: 'ipv4', value: '198.51.100.7' },
    ],
    [
      { type: 'url', value: 'hxxp://evil.com/a' },
      { type: 'url', value: 'http://evil.com/a' },
    ],
    [
      { type: 'sha256', value: 'A'.repeat(64), sources: ['feed_otx'] },
      { type: 'sha256', value: 'a'.repeat(64), sources: ['feed_otx'] },
    ],
    [
      { type: 'email', value: 'x@evil.com' },
      { type: 'email', value: 'x@evil.com' },
    ],
  ])('accepts %j as %j', (input, record) => {
    expect(parse(input)).toEqual(record);
  });

  it('refuses an ip given a domain, on the value, saying what it is', () => {
    expect(problem({ type: 'ip', value: 'evil.com' })).toBe(
      'Invalid indicator: value: not a valid ip: expected an IPv4 or IPv6 address; this is a domain name',
    );
  });

  it.each([
    [{ type: 'ipaddr', value: '8.8.8.8' }, 'type: expected one of ipv4, ipv6, domain, url, md5, sha1, sha256, email'],
    [{ value: '8.8.8.8' }, 'type: expected one of'],
    [{ type: 'ip' }, 'value: '],
    [{ type: 'domain', value: '' }, 'value: must not be empty'],
    [{ type: 'domain', value: 'evil.com', confidence: 101 }, 'confidence: '],
    [{ type: 'domain', value: 'evil.com', colour: 'red' }, 'colour: unknown field'],
  ])('refuses %j, naming the field', (input, message) => {
    expect(problem(input)).toContain(message);
  });
});

describe('IndicatorRefSchema', () => {
  it('takes {type, value} only', () => {
    expect(IndicatorRefSchema.parse({ type: 'ip', value: '8.8.8.8' })).toEqual({ type: 'ipv4', value: '8.8.8.8' });
    expect(IndicatorRefSchema.safeParse({ type: 'ip', value: '8.8.8.8', confidence: 1 }).success).toBe(false);
  });
});
