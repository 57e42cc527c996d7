import { describe, expect, it } from 'vitest';
import type { Indicator, IndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { IndicatorMatcher, type MatcherRule } from './indicator-matcher.js';
import { parseIpRange } from './ip-range.js';
import { compilePcreRegex } from './pcre-regex.js';

const ALL: IndicatorType[] = ['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256', 'email'];

function cidr(text: string, types: IndicatorType[] = ['ipv4', 'ipv6', 'url']): MatcherRule<string> {
  const parsed = parseIpRange(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return { kind: 'cidr', range: parsed.range, types, entry: parsed.range.text, tag: text };
}

function host(name: string, types: IndicatorType[] = ['domain', 'url', 'email']): MatcherRule<string> {
  return { kind: 'hostname', hostname: name, types, entry: name, tag: name };
}

function dottedQuad(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

describe('IndicatorMatcher', () => {
  it('matches exact values of the entry type only', () => {
    const matcher = new IndicatorMatcher<string>();
    matcher.add({ kind: 'exact', value: 'evil.com', types: ['domain'], entry: 'evil.com', tag: 't' });
    expect(matcher.match(parseIndicator('evil.com'))).toEqual({ entry: 'evil.com', kind: 'exact', tag: 't' });
    expect(matcher.match(parseIndicator('a.evil.com'))).toBeUndefined();
  });

  it('walks the labels of domains, URL hosts and email domains, never matching a parent of an entry', () => {
    const matcher = new IndicatorMatcher<string>();
    matcher.add(host('evil.com'));
    matcher.add(host('only-domains.net', ['domain']));
    expect(matcher.match(parseIndicator('a.b.evil.com'))?.entry).toBe('evil.com');
    expect(matcher.match(parseIndicator('https://x.evil.com:8443/p?q=1'))?.entry).toBe('evil.com');
    expect(matcher.match(parseIndicator('someone@mail.evil.com'))?.entry).toBe('evil.com');
    expect(matcher.match(parseIndicator('notevil.com'))).toBeUndefined();
    expect(matcher.match(parseIndicator('a.only-domains.net'))?.entry).toBe('only-domains.net');
    expect(matcher.match(parseIndicator('http://a.only-domains.net/'))).toBeUndefined();
  });

  it('finds the most specific range of either family, in addresses and in URL hosts', () => {
    const matcher = new IndicatorMatcher<string>();
    matcher.addAll([cidr('10.0.0.0/8'), cidr('10.1.0.0/16'), cidr('2001:db8::/32'), cidr('0.0.0.0/0', ['url'])]);
    expect(matcher.match(parseIndicator('10.1.2.3'))?.entry).toBe('10.1.0.0/16');
    expect(matcher.match(parseIndicator('10.2.2.3'))?.entry).toBe('10.0.0.0/8');
    expect(matcher.match(parseIndicator('2001:db8:1::5'))?.entry).toBe('2001:db8::/32');
    expect(matcher.match(parseIndicator('2001:db9::5'))).toBeUndefined();
    expect(matcher.match(parseIndicator('11.0.0.1'))).toBeUndefined();
    // The /0 applies to URLs only: every URL with an IPv4 host, and no address on its own.
    expect(matcher.match(parseIndicator('http://11.0.0.1/x'))?.entry).toBe('0.0.0.0/0');
    expect(matcher.match(parseIndicator('http://[2001:db8::1]/'))?.entry).toBe('2001:db8::/32');
  });

  it('looks IPv4-mapped IPv6 addresses up as the IPv4 address they carry', () => {
    const matcher = new IndicatorMatcher<string>();
    matcher.addAll([cidr('192.168.0.0/16', ['ipv4'])]);
    matcher.add({ kind: 'exact', value: '198.51.100.7', types: ['ipv4'], entry: '198.51.100.7', tag: 'x' });
    expect(matcher.match(parseIndicator('::ffff:192.168.4.4'))?.entry).toBe('192.168.0.0/16');
    expect(matcher.match(parseIndicator('::ffff:198.51.100.7'))?.entry).toBe('198.51.100.7');
    // A mapped range written in IPv6 notation is the same IPv4 range.
    const mapped = parseIpRange('::ffff:10.0.0.0/104');
    expect(mapped.ok && mapped.range.text).toBe('10.0.0.0/8');
  });

  it('finds substrings in one pass and respects each entry type', () => {
    const matcher = new IndicatorMatcher<string>();
    matcher.add({ kind: 'substring', text: 'he', types: ['url'], entry: 'he', tag: 'a' });
    matcher.add({ kind: 'substring', text: 'she', types: ['domain'], entry: 'she', tag: 'b' });
    matcher.add({ kind: 'substring', text: 'hers', types: ['domain'], entry: 'hers', tag: 'c' });
    expect(matcher.match(parseIndicator('ushers.com'))?.entry).toBe('she');
    expect(matcher.match(parseIndicator('http://ushers.com/'))?.entry).toBe('he');
    expect(matcher.match(parseIndicator('other.com'))).toBeUndefined();
    expect(matcher.match(parseIndicator('hers.com'))?.entry).toBe('hers');
  });

  it('tests regular expressions against the normalised value', () => {
    const matcher = new IndicatorMatcher<string>();
    const compiled = compilePcreRegex('#^https://[^/]+/wp-admin/#');
    if (!compiled.ok) throw new Error(compiled.reason);
    matcher.add({ kind: 'regex', regex: compiled.regex, types: ['url'], entry: 'wp', tag: 'r' });
    const url = parseIndicator('HTTPS://Blog.Example.com/wp-admin/x');
    expect(matcher.match(url)?.entry).toBe('wp');
    // A lookup keeps no state (as a global RegExp's lastIndex would), so the second one matches too.
    expect(matcher.match(url)?.entry).toBe('wp');
    expect(matcher.match(parseIndicator('https://blog.example.com/wp-login'))).toBeUndefined();
  });

  it('refuses a JavaScript RegExp, which could backtrack on a lookup', () => {
    const matcher = new IndicatorMatcher<string>();
    const rule = { kind: 'regex', regex: /^(a+)+$/, types: ['domain'], entry: '/^(a+)+$/', tag: 'r' };
    expect(() => matcher.add(rule as unknown as MatcherRule<string>)).toThrow(/expected a LinearRegex/);
  });

  it('ignores duplicates and entries that apply to no type', () => {
    const matcher = new IndicatorMatcher<string>();
    expect(matcher.add(host('evil.com'))).toBe(true);
    expect(matcher.add(host('evil.com'))).toBe(false);
    expect(matcher.add(host('evil.com', []))).toBe(false);
    expect(matcher.size).toBe(1);
  });

  it('lookup cost does not depend on list size: 10,000 lookups against 100,000 entries stay within bounded probes', () => {
    const matcher = new IndicatorMatcher<number>();
    const rules: MatcherRule<number>[] = [];
    // 40,000 single addresses in 11.0.0.0/8.
    for (let i = 0; i < 40_000; i += 1) {
      const value = `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      rules.push({ kind: 'exact', value, types: ['ipv4'], entry: value, tag: i });
    }
    // 30,000 distinct networks with 13 prefix lengths, /16 to /28.
    const network = (k: number): { prefix: number; base: number } => {
      const prefix = 16 + (k % 13);
      return { prefix, base: (k + 1) * 2 ** (32 - prefix) };
    };
    for (let i = 0; i < 30_000; i += 1) {
      const { prefix, base } = network(i);
      const parsed = parseIpRange(`${dottedQuad(base)}/${prefix}`);
      if (!parsed.ok) throw new Error(parsed.reason);
      rules.push({ kind: 'cidr', range: parsed.range, types: ALL, entry: parsed.range.text, tag: i });
    }
    // 30,000 host names.
    for (let i = 0; i < 30_000; i += 1) {
      const name = `host${i}.zone${i % 97}.com`;
      rules.push({ kind: 'hostname', hostname: name, types: ALL, entry: name, tag: i });
    }
    expect(matcher.addAll(rules)).toBe(100_000);
    expect(matcher.size).toBe(100_000);

    const lookups: Indicator[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      const n = (i * 7919) % 60_000;
      if (i % 4 === 0) lookups.push(parseIndicator(`11.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`));
      else if (i % 4 === 1) lookups.push(parseIndicator(dottedQuad(network(n % 30_000).base + (i % 16))));
      else if (i % 4 === 2) lookups.push(parseIndicator(`a.b.host${n}.zone${n % 97}.com`));
      else lookups.push(parseIndicator(`https://c.host${n}.zone${n % 97}.com/path`));
    }

    let hits = 0;
    let worst = 0;
    matcher.resetStats();
    for (const indicator of lookups) {
      const before = matcher.stats.probes;
      if (matcher.match(indicator)) hits += 1;
      worst = Math.max(worst, matcher.stats.probes - before);
    }
    expect(matcher.stats.lookups).toBe(10_000);
    // Some lookups hit and some miss, so both paths were measured.
    expect(hits).toBeGreaterThan(2_000);
    expect(hits).toBeLessThan(10_000);
    // One exact probe plus one per prefix length present (13) for addresses; one exact probe plus one per label
    // (at most 6) for host names. A scan would cost up to 100,000 per lookup.
    expect(worst).toBeLessThanOrEqual(1 + 13);
    expect(matcher.stats.probes).toBeLessThanOrEqual(10_000 * 14);
  });
});
