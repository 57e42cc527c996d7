import { describe, expect, it } from 'vitest';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import {
  INDICATOR_TYPE_NAMES,
  INDICATOR_TYPES,
  type IndicatorType,
  type IndicatorTypeName,
  isIndicatorType,
  isIndicatorTypeName,
  parseIndicator,
} from './index.js';

interface ValidCase {
  input: string;
  type: IndicatorType;
  value: string;
  defanged?: boolean;
}

interface InvalidCase {
  input: string;
  /** A part of the error's reason. */
  error: string;
}

type Case = ValidCase | InvalidCase;

const CASES: readonly Case[] = [
  // Defanged forms, as written in threat reports.
  { input: 'hxxp://evil[.]com/x', type: 'url', value: 'http://evil.com/x', defanged: true },
  { input: '1.2.3[.]4', type: 'ipv4', value: '1.2.3.4', defanged: true },
  { input: 'user[@]example[.]com', type: 'email', value: 'user@example.com', defanged: true },
  { input: 'hxxps[://]foo(.)bar/', type: 'url', value: 'https://foo.bar/', defanged: true },
  {
    input: 'hXXp://malware{.}example[.]org/payload.exe',
    type: 'url',
    value: 'http://malware.example.org/payload.exe',
    defanged: true,
  },
  { input: 'evil[dot]com', type: 'domain', value: 'evil.com', defanged: true },
  { input: 'evil(dot)co(.)uk', type: 'domain', value: 'evil.co.uk', defanged: true },
  { input: 'admin[at]phish(.)net', type: 'email', value: 'admin@phish.net', defanged: true },
  { input: 'billing(at)example(dot)com', type: 'email', value: 'billing@example.com', defanged: true },
  {
    input: 'fxp://files[.]example[.]net/drop.zip',
    type: 'url',
    value: 'ftp://files.example.net/drop.zip',
    defanged: true,
  },
  { input: 'hxxp[:]//198.51.100[.]7/gate.php', type: 'url', value: 'http://198.51.100.7/gate.php', defanged: true },
  {
    input: 'HXXPS://Login-Microsoft[.]com[.]phish[.]ru/owa',
    type: 'url',
    value: 'https://login-microsoft.com.phish.ru/owa',
    defanged: true,
  },
  { input: '203.0.113[.]99', type: 'ipv4', value: '203.0.113.99', defanged: true },
  { input: 'evil[.]com.', type: 'domain', value: 'evil.com', defanged: true },

  // Internationalised domain names.
  { input: 'münchen.de', type: 'domain', value: 'xn--mnchen-3ya.de' },
  { input: 'xn--mnchen-3ya.de', type: 'domain', value: 'xn--mnchen-3ya.de' },
  { input: 'MÜNCHEN.DE', type: 'domain', value: 'xn--mnchen-3ya.de' },
  { input: 'пример.рф', type: 'domain', value: 'xn--e1afmkfd.xn--p1ai' },
  { input: '例え.jp', type: 'domain', value: 'xn--r8jz45g.jp' },
  { input: 'аррӏе.com', type: 'domain', value: 'xn--80ak6aa92e.com' },
  { input: 'https://пример.рф/путь', type: 'url', value: 'https://xn--e1afmkfd.xn--p1ai/%D0%BF%D1%83%D1%82%D1%8C' },
  { input: 'info@münchen.de', type: 'email', value: 'info@xn--mnchen-3ya.de' },

  // IPv4.
  { input: '8.8.8.8', type: 'ipv4', value: '8.8.8.8' },
  { input: '0.0.0.0', type: 'ipv4', value: '0.0.0.0' },
  { input: '255.255.255.255', type: 'ipv4', value: '255.255.255.255' },
  { input: '192.168.1.1.', type: 'ipv4', value: '192.168.1.1' },
  { input: '  10.0.0.1 \n', type: 'ipv4', value: '10.0.0.1' },

  // IPv6.
  { input: '2001:0db8:0000:0000:0000:0000:0000:0001', type: 'ipv6', value: '2001:db8::1' },
  { input: '2001:DB8::1', type: 'ipv6', value: '2001:db8::1' },
  { input: '[2001:db8::1]', type: 'ipv6', value: '2001:db8::1' },
  { input: '::1', type: 'ipv6', value: '::1' },
  { input: '::', type: 'ipv6', value: '::' },
  { input: '::ffff:192.0.2.128', type: 'ipv6', value: '::ffff:192.0.2.128' },
  { input: '::FFFF:C000:0280', type: 'ipv6', value: '::ffff:192.0.2.128' },
  { input: '2001:db8:0:0:1:0:0:1', type: 'ipv6', value: '2001:db8::1:0:0:1' },
  { input: '2001:db8:0:1:1:1:1:1', type: 'ipv6', value: '2001:db8:0:1:1:1:1:1' },
  { input: 'FE80::0202:B3FF:FE1E:8329', type: 'ipv6', value: 'fe80::202:b3ff:fe1e:8329' },
  { input: '64:ff9b::192.0.2.33', type: 'ipv6', value: '64:ff9b::c000:221' },
  { input: '::1.2.3.4', type: 'ipv6', value: '::102:304' },

  // URLs.
  { input: 'HTTP://Example.COM:8080/a/../b?q=1#f', type: 'url', value: 'http://example.com:8080/b?q=1#f' },
  { input: 'https://example.com:443/', type: 'url', value: 'https://example.com/' },
  { input: 'http://1.2.3.4:65535/x', type: 'url', value: 'http://1.2.3.4:65535/x' },
  { input: 'http://[2001:DB8::1]:8443/admin', type: 'url', value: 'http://[2001:db8::1]:8443/admin' },
  { input: 'http://[::ffff:192.0.2.1]/', type: 'url', value: 'http://[::ffff:c000:201]/' },
  { input: 'evil.com/wp-content/shell.php', type: 'url', value: 'http://evil.com/wp-content/shell.php' },
  { input: 'evil.com:8080/gate', type: 'url', value: 'http://evil.com:8080/gate' },
  { input: 'evil.com?id=1', type: 'url', value: 'http://evil.com/?id=1' },
  { input: '198.51.100.23/bins/mirai.arm7', type: 'url', value: 'http://198.51.100.23/bins/mirai.arm7' },
  { input: 'http://evil.com./login', type: 'url', value: 'http://evil.com/login' },
  { input: 'http://user:pass@evil.com/', type: 'url', value: 'http://user:pass@evil.com/' },
  { input: 'ftp://ftp.example.org:21/pub/', type: 'url', value: 'ftp://ftp.example.org/pub/' },
  { input: 'https://bit.ly/3xYzAb?utm_source=mail', type: 'url', value: 'https://bit.ly/3xYzAb?utm_source=mail' },
  { input: 'http://münchen.de/straße', type: 'url', value: 'http://xn--mnchen-3ya.de/stra%C3%9Fe' },
  {
    input: 'https://storage.googleapis.com/b/o.html#victim@example.com',
    type: 'url',
    value: 'https://storage.googleapis.com/b/o.html#victim@example.com',
  },
  { input: 'http://evil_c2.example.com/x', type: 'url', value: 'http://evil_c2.example.com/x' },
  { input: 'http://%65vil.com/', type: 'url', value: 'http://evil.com/' },
  { input: 'https://attacker.github.io/kit/', type: 'url', value: 'https://attacker.github.io/kit/' },
  // A backslash after the authority is part of the path to every parser; WHATWG writes it as "/".
  { input: 'http://example.com/a\\b', type: 'url', value: 'http://example.com/a/b' },

  // Hashes.
  { input: 'D41D8CD98F00B204E9800998ECF8427E', type: 'md5', value: 'd41d8cd98f00b204e9800998ecf8427e' },
  { input: '44d88612fea8a8f36de82e1278abb02f', type: 'md5', value: '44d88612fea8a8f36de82e1278abb02f' },
  {
    input: 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709',
    type: 'sha1',
    value: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
  },
  {
    input: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
    type: 'sha256',
    value: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  },

  // Domains.
  { input: 'Example.COM', type: 'domain', value: 'example.com' },
  { input: 'example.com.', type: 'domain', value: 'example.com' },
  { input: 'evil_c2.duckdns.org', type: 'domain', value: 'evil_c2.duckdns.org' },
  { input: 'a.b.c.d.example.co.uk', type: 'domain', value: 'a.b.c.d.example.co.uk' },
  { input: 'login.microsoftonline.com.evil.xyz', type: 'domain', value: 'login.microsoftonline.com.evil.xyz' },
  { input: 'setup.zip', type: 'domain', value: 'setup.zip' },
  {
    input: 'duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion',
    type: 'domain',
    value: 'duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion',
  },

  // Email addresses.
  { input: 'Phisher.Name@Example.COM', type: 'email', value: 'Phisher.Name@example.com' },
  { input: 'invoice+2024@evil-domain.net', type: 'email', value: 'invoice+2024@evil-domain.net' },
  { input: 'user@example.com.', type: 'email', value: 'user@example.com' },
  { input: "o'brien@example.ie", type: 'email', value: "o'brien@example.ie" },

  // Garbage and near misses.
  { input: '', error: 'is empty' },
  { input: ' \t ', error: 'is empty' },
  { input: 'hello', error: 'has a single label' },
  { input: 'foo', error: '"foo" is only a top-level domain' },
  { input: 'localhost', error: '"localhost" has a single label and is not a known public suffix' },
  { input: 'file.exe', error: '"exe" is not a known public suffix' },
  { input: '1.2.3', error: 'not a valid ipv4: has 3 parts' },
  { input: '1.2.3.4.5', error: 'has 5 parts' },
  { input: '127.1', error: 'has 2 parts' },
  { input: '999.1.1.1', error: 'octet 999 is out of range (0-255)' },
  { input: '01.2.3.4', error: 'octet "01" has a leading zero, which inet_aton reads as octal' },
  { input: '0x7f.1', error: 'octet "0x7f" is hexadecimal' },
  { input: '10.0.0.0/8', error: 'is a CIDR range' },
  { input: 'http://', error: 'not a valid url: has no host' },
  { input: '://x', error: 'has no valid scheme name before "://"' },
  {
    input: '<script>',
    error: 'not recognised as a hash, IP address, URL, email address or domain name (it contains "<")',
  },
  { input: 'evil.com\u0007', error: 'contains the control character U+0007' },
  { input: 'evil .com', error: 'contains whitespace (U+0020)' },
  { input: 'fe80::1%eth0', error: 'has a zone id ("%eth0")' },
  { input: '2001:db8::1::2', error: 'has more than one "::"' },
  { input: '12345::1', error: 'group "12345" has more than four hex digits' },
  { input: '[::1', error: 'has an unbalanced bracket' },
  { input: 'http://1.2.3.4:65536/x', error: 'port 65536 is out of range (0-65535)' },
  { input: 'http://evil.com:abc/', error: 'port "abc" is not a number' },
  { input: 'http://127.1/', error: 'host "127.1": has 2 parts' },
  { input: 'http://0x7f000001/', error: 'is hexadecimal' },
  { input: 'http://2001:db8::1/', error: 'an IPv6 host must be written in brackets' },
  { input: 'http://[fe80::1%25eth0]/', error: 'has a zone id' },
  // WHATWG ends the authority at "\", RFC 3986 does not: the host would be "example.com" or "example.com\a\b".
  { input: 'http://example.com\\a\\b', error: 'has a backslash in its authority (before the path)' },
  { input: 'evil.com:8080', error: 'is a host and port without a scheme or path' },
  { input: 'javascript:alert(1)', error: 'scheme "javascript" is not supported' },
  { input: 'C:\\Windows\\System32\\evil.dll', error: 'looks like a Windows file path' },
  { input: 'd41d8cd98f00b204e9800998ecf8427ea', error: 'has 33 hex digits' },
  { input: 'user@@example.com', error: 'has more than one "@"' },
  { input: '@example.com', error: 'has nothing before the "@"' },
  { input: 'user@[192.0.2.1]', error: 'IP-literal domains' },
  { input: 'user@file.exe', error: 'domain "file.exe": "exe" is not a known public suffix' },
  { input: '-evil.com', error: 'label "-evil" starts or ends with "-"' },
  { input: 'evil..com', error: 'has an empty label' },
  { input: `${'a'.repeat(64)}.com`, error: 'is 64 characters long (at most 63)' },
  { input: 'x'.repeat(9000), error: 'is longer than 8 KiB' },
];

function isInvalid(testCase: Case): testCase is InvalidCase {
  return 'error' in testCase;
}

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, got none');
}

describe('parseIndicator', () => {
  it('has a large table of real-world cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(70);
    expect(CASES.filter(isInvalid).length).toBeGreaterThanOrEqual(15);
  });

  it.each(CASES.map((testCase) => [testCase.input.slice(0, 60), testCase] as const))('%j', (_, testCase) => {
    if (isInvalid(testCase)) {
      const error = catchError(() => parseIndicator(testCase.input));
      expect(error).toBeInstanceOf(InvalidIndicatorError);
      expect(InvalidIndicatorError.isInstance(error)).toBe(true);
      const invalid = error as InvalidIndicatorError;
      expect(invalid.reason).toContain(testCase.error);
      expect(invalid.input).toBe(testCase.input);
      return;
    }
    expect(parseIndicator(testCase.input)).toEqual({
      type: testCase.type,
      value: testCase.value,
      input: testCase.input,
      defanged: testCase.defanged ?? false,
    });
  });

  it('names the input and the reason in the message', () => {
    const error = catchError(() => parseIndicator('999.1.1.1')) as InvalidIndicatorError;
    expect(error.message).toBe('Invalid indicator "999.1.1.1": not a valid ipv4: octet 999 is out of range (0-255)');
  });

  it('gives the same value for an indicator however it was written', () => {
    const forms = ['evil.com', 'EVIL.COM.', 'evil[.]com', ' evil(dot)com '];
    expect(new Set(forms.map((form) => parseIndicator(form).value))).toEqual(new Set(['evil.com']));
  });

  it('returns values that parse back to themselves', () => {
    for (const testCase of CASES) {
      if (isInvalid(testCase)) continue;
      const again = parseIndicator(testCase.value, testCase.type);
      expect(again.value, testCase.input).toBe(testCase.value);
    }
  });

  it.each([
    [42, 'expected a string, got number'],
    [null, 'expected a string, got null'],
    [undefined, 'expected a string, got undefined'],
    [['1.2.3.4'], 'expected a string, got an array'],
    [Object.create(null), 'expected a string, got object'],
  ])('refuses the non-string %j', (input, reason) => {
    const error = catchError(() => parseIndicator(input as unknown as string)) as InvalidIndicatorError;
    expect(error).toBeInstanceOf(InvalidIndicatorError);
    expect(error.reason).toBe(reason);
  });

  it('accepts exactly 8 KiB and refuses one byte more, counting UTF-8 bytes', () => {
    const label = 'a'.repeat(60);
    const domainOf = (length: number) => `${label}.com/${'p'.repeat(length - label.length - 5)}`;
    expect(parseIndicator(domainOf(8192)).type).toBe('url');
    expect(() => parseIndicator(domainOf(8193))).toThrow(/longer than 8 KiB/);
    // 2731 three-byte characters are 8193 bytes but only 2731 UTF-16 code units.
    expect(() => parseIndicator(`evil.com/${'€'.repeat(2731)}`)).toThrow(/longer than 8 KiB/);
  });
});

describe('parseIndicator with an explicit type', () => {
  it.each<[string, IndicatorType, string, boolean]>([
    ['EVIL.COM.', 'domain', 'evil.com', false],
    ['evil.com/x', 'url', 'http://evil.com/x', false],
    ['[::1]', 'ipv6', '::1', false],
    ['hxxp://1.2.3[.]4/', 'url', 'http://1.2.3.4/', true],
    ['D41D8CD98F00B204E9800998ECF8427E', 'md5', 'd41d8cd98f00b204e9800998ecf8427e', false],
    ['user[at]evil[.]com', 'email', 'user@evil.com', true],
    ['192.0.2.1', 'ipv4', '192.0.2.1', false],
  ])('parses %j as %s', (input, type, value, defanged) => {
    expect(parseIndicator(input, type)).toEqual({ type, value, input, defanged });
  });

  it.each<[string, IndicatorType, string]>([
    ['evil.com', 'ipv4', 'not a valid ipv4: expected four dot-separated decimal octets'],
    ['1.2.3.4', 'domain', 'not a valid domain: the last label "4" is a number'],
    ['1.2.3.4', 'ipv6', 'not a valid ipv6: expected colon-separated groups of hex digits'],
    ['d41d8cd98f00b204e9800998ecf8427e', 'sha1', 'not a valid sha1: has 32 hex digits; a SHA-1 hash has 40'],
    ['d41d8cd98f00b204e9800998ecf8427e', 'sha256', 'not a valid sha256: has 32 hex digits; a SHA-256 hash has 64'],
    ['zz1d8cd98f00b204e9800998ecf8427e', 'md5', 'not a valid md5: contains "z", which is not a hexadecimal digit'],
    ['evil.com', 'url', 'not a valid url: has no scheme (http, https or ftp) and no path after the host'],
    ['evil.com', 'email', 'not a valid email: has no "@"'],
    ['http://evil.com/', 'domain', 'not a valid domain: contains ":"'],
    ['user@evil.com', 'url', 'not a valid url: has no scheme'],
  ])('refuses %j as %s', (input, type, reason) => {
    const error = catchError(() => parseIndicator(input, type)) as InvalidIndicatorError;
    expect(error).toBeInstanceOf(InvalidIndicatorError);
    expect(error.reason).toContain(reason);
  });

  it('refuses a type it does not know, listing the ones it does', () => {
    expect(() => parseIndicator('evil.com', 'ipv5' as IndicatorType)).toThrow(
      'unknown indicator type "ipv5" (expected one of ipv4, ipv6, domain, url, md5, sha1, sha256, email, ip, hostname)',
    );
  });
});

describe('parseIndicator with a type alias', () => {
  it.each<[string, IndicatorTypeName, IndicatorType, string]>([
    ['8.8.8.8', 'ip', 'ipv4', '8.8.8.8'],
    ['8.8.8[.]8', 'ip', 'ipv4', '8.8.8.8'],
    ['2001:DB8:0:0:0:0:0:1', 'ip', 'ipv6', '2001:db8::1'],
    ['[::1]', 'ip', 'ipv6', '::1'],
    ['Example.COM', 'hostname', 'domain', 'example.com'],
  ])('parses %j given as %s to the precise type', (input, alias, type, value) => {
    expect(parseIndicator(input, alias)).toMatchObject({ type, value, input });
  });

  it.each<[string, IndicatorTypeName, string]>([
    ['evil.com', 'ip', 'not a valid ip: expected an IPv4 or IPv6 address; this is a domain name'],
    ['http://8.8.8.8/', 'ip', 'not a valid ip: expected an IPv4 or IPv6 address; this is a URL'],
    ['1.2.3.256', 'ip', 'not a valid ipv4: '],
    ['2001:db8::g', 'ip', 'not a valid ipv6: '],
    ['8.8.8.8', 'hostname', 'not a valid domain: the last label "8" is a number'],
  ])('refuses %j as %s, saying why', (input, alias, reason) => {
    const error = catchError(() => parseIndicator(input, alias)) as InvalidIndicatorError;
    expect(error).toBeInstanceOf(InvalidIndicatorError);
    expect(error.reason).toContain(reason);
  });
});

describe('isIndicatorTypeName', () => {
  it.each(INDICATOR_TYPE_NAMES)('accepts %s', (type) => {
    expect(isIndicatorTypeName(type)).toBe(true);
  });

  it.each([['IP'], ['ipv5'], [''], [null]])('refuses %j', (value) => {
    expect(isIndicatorTypeName(value)).toBe(false);
  });
});

describe('isIndicatorType', () => {
  it.each(INDICATOR_TYPES)('accepts %s', (type) => {
    expect(isIndicatorType(type)).toBe(true);
  });

  it.each([['ip'], ['IPv4'], [''], [null], [4], [{}]])('refuses %j', (value) => {
    expect(isIndicatorType(value)).toBe(false);
  });
});
