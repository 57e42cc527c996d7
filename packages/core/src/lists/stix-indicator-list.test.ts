import { describe, expect, it } from 'vitest';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { stixIndicatorId } from '../stix/stix-objects.js';
import { toStixPattern } from '../stix/stix-pattern.js';
import { StixIndicatorList } from './stix-indicator-list.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');

function indicator(pattern: string, extra: Record<string, unknown> = {}, n = 1) {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    created: '2026-01-01T00:00:00.000Z',
    modified: '2026-01-01T00:00:00.000Z',
    pattern,
    pattern_type: 'stix',
    valid_from: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

const listed = (list: StixIndicatorList, value: string) => list.lookup(parseIndicator(value)).status === 'ok';

describe('StixIndicatorList', () => {
  it("lists the values of toStixPattern's forms and of other producers' equality forms, ORed or not", () => {
    const list = new StixIndicatorList({ name: 'inbox', now: () => T0 });
    const values = [
      '198.51.100.7',
      '2001:db8::1',
      'evil-example.com',
      'http://bad-example.com/x',
      'phish@evil-example.com',
      'd41d8cd98f00b204e9800998ecf8427e',
      'da39a3ee5e6b4b0d3255bfef95601890afd80709',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ];
    const outcomes = list.upsert([
      ...values.map((value, i) => indicator(toStixPattern(parseIndicator(value)), {}, i + 1)),
      indicator("[file:hashes.MD5 = '0cc175b9c0f1b6a831c399e269772661']", {}, 20),
      indicator("[file:hashes.'SHA1' = '86f7e437faa5a7fce15d1ddcb9eaeaea377667b8']", {}, 21),
      indicator(
        "[ipv4-addr:value = '203.0.113.9' OR domain-name:value = 'other-example.com'] OR [url:value = 'http://x-example.com/']",
        {},
        22,
      ),
    ]);
    expect(outcomes.every((o) => o.outcome === 'added' && o.reason === undefined)).toBe(true);
    for (const value of [
      ...values,
      '0cc175b9c0f1b6a831c399e269772661',
      '86f7e437faa5a7fce15d1ddcb9eaeaea377667b8',
      '203.0.113.9',
      'other-example.com',
      'http://x-example.com/',
    ]) {
      expect(listed(list, value), value).toBe(true);
    }
    expect(listed(list, '198.51.100.8')).toBe(false);
    expect(list.lookup(parseIndicator('evil-example.com'))).toMatchObject({
      status: 'ok',
      verdict: 'malicious',
      evidence: ['listed in local list "inbox"'],
    });
    expect(list.status()).toMatchObject({ indicators: 11, entries: 13, skipped: 0 });
  });

  it('keeps the newest version of each indicator: a newer one replaces, an older or repeated one changes nothing', () => {
    const list = new StixIndicatorList({ name: 'inbox', now: () => T0 });
    const v1 = indicator("[domain-name:value = 'one-example.com']", { modified: '2026-01-01T00:00:00.000Z' });
    const v2 = indicator("[domain-name:value = 'two-example.com']", { modified: '2026-01-02T00:00:00.000Z' });
    expect(list.upsert([v1]).map((o) => o.outcome)).toEqual(['added']);
    expect(list.upsert([v2]).map((o) => o.outcome)).toEqual(['updated']);
    expect(listed(list, 'one-example.com')).toBe(false);
    expect(listed(list, 'two-example.com')).toBe(true);
    const again = list.upsert([v1, v2]);
    expect(again.map((o) => [o.outcome, o.reason])).toEqual([
      ['skipped', 'older-version'],
      ['unchanged', undefined],
    ]);
    expect(listed(list, 'one-example.com')).toBe(false);
    expect(list.status().skippedByReason).toEqual({ 'older-version': 1 });
  });

  it('removes a revoked indicator, and an older version given later does not bring it back', () => {
    const list = new StixIndicatorList({ name: 'inbox', now: () => T0 });
    const v1 = indicator("[ipv4-addr:value = '198.51.100.7']");
    list.upsert([v1]);
    expect(listed(list, '198.51.100.7')).toBe(true);
    const revoked = { ...v1, modified: '2026-02-01T00:00:00.000Z', revoked: true };
    expect(list.upsert([revoked])).toEqual([
      { id: v1.id, outcome: 'removed', reason: 'revoked', detail: 'is revoked' },
    ]);
    expect(listed(list, '198.51.100.7')).toBe(false);
    expect(list.upsert([v1])[0]).toMatchObject({ outcome: 'skipped', reason: 'older-version' });
    expect(listed(list, '198.51.100.7')).toBe(false);
    expect(list.status()).toMatchObject({ indicators: 0, skippedByReason: { revoked: 1, 'older-version': 1 } });
    // remove() forgets it, versions too: the first version is new again.
    expect(list.remove(v1.id)).toBe(true);
    expect(list.upsert([v1])[0]?.outcome).toBe('added');
  });

  it('applies an entry from valid_from until valid_until, by its own clock', () => {
    let now = T0;
    const list = new StixIndicatorList({ name: 'inbox', now: () => now });
    const outcomes = list.upsert([
      indicator("[domain-name:value = 'gone-example.com']", { valid_until: '2026-02-01T00:00:00Z' }, 1),
      indicator("[domain-name:value = 'soon-example.com']", { valid_until: '2026-03-01T01:00:00Z' }, 2),
      indicator("[domain-name:value = 'later-example.com']", { valid_from: '2026-03-01T02:00:00Z' }, 3),
    ]);
    expect(outcomes.map((o) => [o.outcome, o.reason])).toEqual([
      ['skipped', 'expired'],
      ['added', undefined],
      ['added', undefined],
    ]);
    expect(listed(list, 'gone-example.com')).toBe(false);
    expect(listed(list, 'soon-example.com')).toBe(true);
    expect(listed(list, 'later-example.com')).toBe(false);
    now = Date.parse('2026-03-01T01:00:00Z');
    expect(listed(list, 'soon-example.com')).toBe(false);
    expect(listed(list, 'later-example.com')).toBe(false);
    now = Date.parse('2026-03-01T02:00:00Z');
    expect(listed(list, 'later-example.com')).toBe(true);
  });

  it('counts, by reason, every object and pattern part it does not use, and keeps the usable part of a pattern', () => {
    const list = new StixIndicatorList({ name: 'inbox', now: () => T0 });
    const outcomes = list.upsert([
      { type: 'identity', id: 'identity--00000000-0000-4000-8000-000000000001' },
      'not an object',
      { type: 'indicator', id: 'indicator--nope', modified: '2026-01-01T00:00:00Z', pattern: "[url:value = 'x']" },
      indicator("[url:value = 'http://a-example.com/']", { modified: 'yesterday' }, 3),
      indicator('alert tcp any any -> any any (msg:"x";)', { pattern_type: 'snort' }, 4),
      indicator("[ipv4-addr:value = '198.51.100.1' AND ipv4-addr:value = '198.51.100.2']", {}, 5),
      indicator("[domain-name:value = 'kept-example.com' OR file:name = 'evil.exe']", {}, 6),
      indicator("[domain-name:value = 'not a domain']", {}, 7),
    ]);
    expect(outcomes.map((o) => [o.outcome, o.reason])).toEqual([
      ['skipped', 'not-indicator'],
      ['skipped', 'invalid'],
      ['skipped', 'invalid'],
      ['skipped', 'invalid'],
      ['skipped', 'pattern-type'],
      ['skipped', 'pattern'],
      ['added', 'pattern'],
      ['skipped', 'pattern'],
    ]);
    expect(listed(list, 'kept-example.com')).toBe(true);
    const status = list.status();
    expect(status).toMatchObject({
      indicators: 1,
      skipped: 8,
      skippedByReason: { 'not-indicator': 1, invalid: 3, 'pattern-type': 1, pattern: 3 },
    });
    expect(status.recentSkipped.at(-1)).toMatchObject({
      reason: 'pattern',
      detail: expect.stringContaining('not a domain'),
    });
    expect(status.recentSkipped.find((s) => s.reason === 'pattern-type')?.detail).toMatch(/pattern_type "snort"/);
  });

  it('holds at most maxIndicators, skipping the rest with reason limit', () => {
    const list = new StixIndicatorList({ name: 'inbox', maxIndicators: 2, now: () => T0 });
    const outcomes = list.upsert([1, 2, 3].map((n) => indicator(`[ipv4-addr:value = '198.51.100.${n}']`, {}, n)));
    expect(outcomes.map((o) => o.reason)).toEqual([undefined, undefined, 'limit']);
    expect(listed(list, '198.51.100.3')).toBe(false);
  });

  it('is rebuilt from its snapshot with the same entries and versions', () => {
    const list = new StixIndicatorList({ name: 'inbox', now: () => T0 });
    const kept = indicator(toStixPattern(parseIndicator('kept-example.com')), {}, 1);
    const revoked = indicator("[domain-name:value = 'revoked-example.com']", { revoked: true }, 2);
    list.upsert([kept, revoked]);
    const copy = new StixIndicatorList({ name: 'inbox', now: () => T0 });
    copy.upsert(JSON.parse(JSON.stringify(list.snapshot())));
    expect(listed(copy, 'kept-example.com')).toBe(true);
    expect(copy.size).toBe(2);
    expect(copy.upsert([{ ...revoked, revoked: false }])[0]?.outcome).toBe('unchanged');
    expect(stixIndicatorId(parseIndicator('kept-example.com'))).toMatch(/^indicator--/);
  });

  it('with {commit: false}, lookups see the change only at commit()', () => {
    const list = new StixIndicatorList({ name: 'inbox', now: () => T0 });
    list.upsert([indicator("[domain-name:value = 'page-example.com']")], { commit: false });
    expect(listed(list, 'page-example.com')).toBe(false);
    list.commit();
    expect(listed(list, 'page-example.com')).toBe(true);
  });

  it('refuses invalid options, naming them', () => {
    expect(() => new StixIndicatorList({ name: '' })).toThrow(/needs a name/);
    expect(() => new StixIndicatorList({ name: 'x', verdict: 'bad' as never })).toThrow(/unknown verdict "bad"/);
    expect(() => new StixIndicatorList({ name: 'x', maxIndicators: 0 })).toThrow(/maxIndicators/);
  });
});
