import { describe, expect, it } from 'vitest';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { INDICATOR_TYPES } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { stixStringLiteral, toStixPattern } from './stix-pattern.js';

const MD5 = 'd41d8cd98f00b204e9800998ecf8427e';
const SHA1 = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('toStixPattern', () => {
  // The object types and paths of STIX 2.1 part 6, hash names from the hashing-algorithm vocabulary (10.7); a path
  // component with a hyphen is quoted, as the patterning grammar requires.
  const cases = [
    [{ type: 'ipv4', value: '198.51.100.7' }, "[ipv4-addr:value = '198.51.100.7']"],
    [{ type: 'ipv6', value: '2001:db8::1' }, "[ipv6-addr:value = '2001:db8::1']"],
    [{ type: 'domain', value: 'evil.com' }, "[domain-name:value = 'evil.com']"],
    [{ type: 'url', value: 'http://evil.com/x' }, "[url:value = 'http://evil.com/x']"],
    [{ type: 'email', value: 'bad@evil.com' }, "[email-addr:value = 'bad@evil.com']"],
    [{ type: 'md5', value: MD5 }, `[file:hashes.MD5 = '${MD5}']`],
    [{ type: 'sha1', value: SHA1 }, `[file:hashes.'SHA-1' = '${SHA1}']`],
    [{ type: 'sha256', value: SHA256 }, `[file:hashes.'SHA-256' = '${SHA256}']`],
  ] as const;

  it.each(cases)('writes %o as %s', (indicator, pattern) => {
    expect(toStixPattern(indicator)).toBe(pattern);
  });

  it('covers every indicator type core knows', () => {
    expect(new Set(cases.map(([indicator]) => indicator.type))).toEqual(new Set(INDICATOR_TYPES));
  });

  it('takes the record form with aliases, and normalises the value first', () => {
    expect(toStixPattern({ type: 'ip', value: '2001:DB8:0:0:0:0:0:1' })).toBe("[ipv6-addr:value = '2001:db8::1']");
    expect(toStixPattern({ type: 'ip', value: '198.51.100.7' })).toBe("[ipv4-addr:value = '198.51.100.7']");
    expect(toStixPattern({ type: 'hostname', value: 'Evil.COM.' })).toBe("[domain-name:value = 'evil.com']");
    expect(toStixPattern({ type: 'sha256', value: SHA256.toUpperCase() })).toBe(
      `[file:hashes.'SHA-256' = '${SHA256}']`,
    );
  });

  it("takes core's parsed indicator, defanged input included", () => {
    expect(toStixPattern(parseIndicator('hxxp://evil[.]com/x'))).toBe("[url:value = 'http://evil.com/x']");
    expect(toStixPattern(parseIndicator('Bücher.de'))).toBe("[domain-name:value = 'xn--bcher-kva.de']");
  });

  it("escapes ' and \\ in the literal and leaves everything else as it is", () => {
    expect(toStixPattern({ type: 'url', value: "http://evil.com/it's]?q=a\\b#'\\" })).toBe(
      "[url:value = 'http://evil.com/it\\'s]?q=a\\\\b#\\'\\\\']",
    );
    expect(toStixPattern({ type: 'email', value: "o'brien.😀@evil.com" })).toBe(
      "[email-addr:value = 'o\\'brien.😀@evil.com']",
    );
  });

  it('refuses what is not an indicator of its type, saying why', () => {
    expect(() => toStixPattern({ type: 'ipv4', value: 'evil.com' })).toThrow(InvalidIndicatorError);
    expect(() => toStixPattern({ type: 'md5', value: SHA1 })).toThrow(/has 40 hex digits; an MD5 hash has 32/);
    expect(() => toStixPattern({ type: 'url', value: "http://evil.com/a\nb'" })).toThrow(/whitespace/);
    expect(() => toStixPattern(null as never)).toThrow(/expected an indicator \{type, value\}/);
  });
});

describe('stixStringLiteral', () => {
  it('quotes and escapes per the patterning grammar', () => {
    expect(stixStringLiteral('')).toBe("''");
    expect(stixStringLiteral("a'b\\c")).toBe("'a\\'b\\\\c'");
    expect(stixStringLiteral("\\'")).toBe("'\\\\\\''");
    expect(stixStringLiteral('line\nbreak\t"ü"')).toBe('\'line\nbreak\t"ü"\'');
  });
});
