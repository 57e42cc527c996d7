import { describe, expect, it } from 'vitest';
import type { Indicator } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { builtinWarninglists } from './builtin-warninglists.js';
import { otherHostReadings, serialisedUrlHost } from './host-readings.js';
import { parseLocalList } from './local-list.js';
import { WarninglistSet } from './warninglist-set.js';

/**
 * A URL indicator as something other than parseIndicator might build it (another parser, a bug): its value is the
 * WHATWG reading of `input`, which RFC 3986 parsers read differently.
 */
function unparsedUrl(input: string): Indicator {
  return { type: 'url', value: new URL(input).href, input, defanged: false };
}

describe('host readings of a URL', () => {
  it.each([
    ['http://evil.com/x', 'evil.com'],
    ['http://user:p%40ss@evil.com:8080/x?y#z', 'evil.com'],
    ['http://[::ffff:7f00:1]:80/', '[::ffff:7f00:1]'],
    ['ftp://10.0.0.1', '10.0.0.1'],
  ])('the serialised host of %j is %j', (href, host) => {
    expect(serialisedUrlHost(href)).toBe(host);
  });

  it.each([
    'http://EVIL.com/x',
    'hxxps://evil[.]com/x',
    'http://münchen.de/',
    'http://evil.com./login',
    'http://%65vil.com/',
    'http://[::FFFF:127.0.0.1]/',
    'http://[2001:DB8:0::1]:8443/',
    'https://user:pass@evil.com:8443/',
    'http://evil.com@127.0.0.1/',
    '198.51.100.23/bins/mirai.arm7',
    'evil.com:8080/gate',
    'http://192.168.1.1/a\\@evil.com',
  ])('%j, as parseIndicator accepts it, has no other reading', (input) => {
    expect(otherHostReadings(parseIndicator(input))).toEqual([]);
  });

  it('reads the host after a backslash, as RFC 3986 parsers do', () => {
    expect(otherHostReadings(unparsedUrl('http://127.0.0.1\\@evil.com/'))).toEqual([
      { kind: 'name', value: 'evil.com' },
    ]);
    expect(otherHostReadings(unparsedUrl('http://[::1]\\@10.0.0.1/'))).toEqual([{ kind: 'ipv4', value: '10.0.0.1' }]);
  });

  it('counts a reading that is no host as one nothing covers', () => {
    expect(otherHostReadings(unparsedUrl('http://127.0.0.1\\.evil.com/'))).toEqual([undefined]);
  });
});

describe('a list that clears an indicator covers every reading of it', () => {
  const warninglists = new WarninglistSet(builtinWarninglists());

  it.each([
    'http://127.0.0.1\\@evil.com/',
    'ftp://10.0.0.1\\@evil.com/payload',
    'http://[::ffff:127.0.0.1]\\@evil.com/',
    'http://127.0.0.1\\.evil.com/',
    'http://x@evil.com@127.0.0.1/',
  ])('the built-in warninglists do not clear %j', (input) => {
    const indicator = unparsedUrl(input);
    expect(warninglists.match(indicator)).toBeUndefined();
    for (const list of builtinWarninglists()) expect(list.match(indicator)).toBeUndefined();
  });

  it('they clear a URL whose readings are all special-use addresses', () => {
    expect(warninglists.match(unparsedUrl('http://10.0.0.1\\@192.168.1.1/'))?.entry).toBe('10.0.0.0/8');
  });

  it('a clean local list does not clear a URL one of whose hosts it does not cover', () => {
    const allow = parseLocalList('*.example.org\n', { name: 'allow', verdict: 'clean' });
    expect(allow.lookup(unparsedUrl('http://a.example.org\\@evil.com/')).verdict).toBe('unknown');
    expect(allow.lookup(unparsedUrl('http://a.example.org\\@b.example.org/')).verdict).toBe('clean');
  });

  it('a blocklist flags a URL when it covers any of its hosts', () => {
    const block = parseLocalList('*.evil.com\n', { name: 'block', verdict: 'malicious' });
    const lookup = block.lookup(unparsedUrl('http://127.0.0.1\\@evil.com/'));
    expect(lookup).toMatchObject({ status: 'ok', verdict: 'malicious' });
    expect(lookup.evidence[0]).toBe('listed in local list "block" (line 1: *.evil.com)');
  });
});
