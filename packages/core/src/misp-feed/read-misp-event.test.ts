import { describe, expect, it } from 'vitest';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { IndicatorMatcher } from '../lists/indicator-matcher.js';
import { withoutFragment } from '../lists/local-list.js';
import { indicatorTypesForAttributes } from '../lists/misp-attribute-types.js';
import { attributeParts, COMPOSITE_PARTS } from './misp-attribute-values.js';
import { type ReadMispEventOptions, readMispEvent } from './read-misp-event.js';

const UUID = '5b1c8d2e-4f6a-4b7c-9d8e-0f1a2b3c4d5e';
const DEFAULTS: ReadMispEventOptions = { toIdsOnly: true, match: 'host' };

function eventText(fields: Record<string, unknown>, uuid = UUID): string {
  return JSON.stringify({ Event: { uuid, info: 'OSINT test', date: '2026-01-15', ...fields } });
}

/** The entries an event gives, as the matcher's reported entry for each probe (undefined: not listed). */
function read(fields: Record<string, unknown>, options: Partial<ReadMispEventOptions> = {}) {
  const result = readMispEvent(eventText(fields), UUID, { ...DEFAULTS, ...options });
  if ('problem' in result) throw new Error(result.problem);
  const matcher = new IndicatorMatcher<unknown>();
  matcher.addAll(result.rules);
  return {
    result,
    // As the list looks them up: a URL without its fragment in host mode.
    match: (value: string) => matcher.match(withoutFragment(parseIndicator(value)))?.entry,
    reasons: Object.fromEntries(result.skips.byReason),
  };
}

describe('MISP attribute types', () => {
  it('reads each part of a composite attribute as MISP splits it', () => {
    expect(attributeParts('domain|ip', 'evil.example.com|198.51.100.7')).toEqual([
      { text: 'evil.example.com', types: ['domain'] },
      { text: '198.51.100.7', types: ['ipv4', 'ipv6'] },
    ]);
    expect(attributeParts('ip-dst|port', '198.51.100.7|443')).toEqual([
      { text: '198.51.100.7', types: ['ipv4', 'ipv6'] },
    ]);
    // A file name may hold "|"; the hash is the last part.
    expect(attributeParts('filename|md5', 'a|b.exe|d41d8cd98f00b204e9800998ecf8427e')).toEqual([
      { text: 'd41d8cd98f00b204e9800998ecf8427e', types: ['md5'] },
    ]);
    expect(attributeParts('domain|ip', 'evil.example.com')).toEqual({
      reason: 'a domain|ip value is two parts separated by "|"',
    });
    expect(attributeParts('yara', 'rule x {}')).toEqual({ reason: 'of a type threatlib does not look up' });
    expect(attributeParts('ALL', 'x')).toEqual({ reason: 'of a type threatlib does not look up' });
  });

  it('agrees with the warninglist mapping on which indicator types each composite type covers', () => {
    for (const [type, parts] of Object.entries(COMPOSITE_PARTS)) {
      const covered = new Set(parts.flatMap((part) => part ?? []));
      expect([...covered].sort(), type).toEqual([...indicatorTypesForAttributes([type]).types].sort());
    }
  });
});

describe('readMispEvent', () => {
  it('makes an entry of each attribute of a type threatlib looks up, objects included', () => {
    const { match, result } = read({
      Attribute: [
        { type: 'ip-src', value: '198.51.100.7', to_ids: true },
        { type: 'ip-dst', value: '203.0.113.0/24', to_ids: true },
        { type: 'hostname', value: 'c2.evil.example.com', to_ids: true },
        { type: 'domain|ip', value: 'both.example.com|192.0.2.9', to_ids: true },
        { type: 'ip-dst|port', value: '192.0.2.10|8080', to_ids: true },
        { type: 'url', value: 'http://phish.example.com/login', to_ids: true },
        { type: 'filename|sha256', value: `drop.exe|${'A'.repeat(64)}`, to_ids: true },
        { type: 'email-src', value: 'Bad@Phish.example.com', to_ids: true },
        { type: 'malware-sample', value: 'x.exe|d41d8cd98f00b204e9800998ecf8427e', to_ids: true },
      ],
      Object: [
        {
          name: 'domain-ip',
          Attribute: [
            { type: 'domain', value: 'obj.example.com', to_ids: true, object_relation: 'domain' },
            { type: 'ip-dst', value: '192.0.2.44', to_ids: true, object_relation: 'ip' },
          ],
        },
      ],
    });
    expect(result.skips.count).toBe(0);
    expect(match('198.51.100.7')).toBe('198.51.100.7');
    expect(match('203.0.113.200')).toBe('203.0.113.0/24');
    expect(match('http://a.c2.evil.example.com/x')).toBe('c2.evil.example.com');
    expect(match('both.example.com')).toBe('both.example.com');
    expect(match('192.0.2.9')).toBe('192.0.2.9');
    expect(match('192.0.2.10')).toBe('192.0.2.10');
    expect(match('http://phish.example.com/login#frag')).toBe('http://phish.example.com/login');
    expect(match('a'.repeat(64))).toBe('a'.repeat(64));
    // The domain of an address has no case; its local part is compared as written (MISP lower-cases it on storing).
    expect(match('Bad@PHISH.example.com')).toBe('Bad@phish.example.com');
    expect(match('d41d8cd98f00b204e9800998ecf8427e')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(match('obj.example.com')).toBe('obj.example.com');
    expect(match('192.0.2.44')).toBe('192.0.2.44');
    // The port is not an indicator; neither is the file name.
    expect(result.rules.map((rule) => rule.entry)).not.toContain('drop.exe');
    expect(result.rules).toHaveLength(12);
    const object = result.rules.find((rule) => rule.entry === 'obj.example.com')?.tag;
    expect(object).toMatchObject({ type: 'domain', object: 'domain-ip', event: { uuid: UUID, info: 'OSINT test' } });
  });

  it('honours to_ids: attributes without it are skipped by default, kept with toIdsOnly false', () => {
    const attributes = [
      { type: 'domain', value: 'context.example.com', to_ids: false },
      { type: 'domain', value: 'string-flag.example.com', to_ids: '0' },
      { type: 'domain', value: 'detect.example.com', to_ids: true },
      // No flag: the type's MISP default, true for a domain, false for an e-mail reply-to.
      { type: 'domain', value: 'unflagged.example.com' },
      { type: 'email-reply-to', value: 'reply@elsewhere.example.net' },
    ];
    const strict = read({ Attribute: attributes });
    expect(strict.match('context.example.com')).toBeUndefined();
    expect(strict.match('string-flag.example.com')).toBeUndefined();
    expect(strict.match('detect.example.com')).toBe('detect.example.com');
    expect(strict.match('unflagged.example.com')).toBe('unflagged.example.com');
    expect(strict.match('reply@elsewhere.example.net')).toBeUndefined();
    expect(strict.reasons).toEqual({ 'to_ids is false': 3 });

    const all = read({ Attribute: attributes }, { toIdsOnly: false });
    expect(all.match('context.example.com')).toBe('context.example.com');
    expect(all.match('reply@elsewhere.example.net')).toBe('reply@elsewhere.example.net');
    expect(all.result.skips.count).toBe(0);
  });

  it('skips deleted attributes and the attributes of deleted objects, and counts them', () => {
    const { match, reasons } = read({
      Attribute: [
        { type: 'domain', value: 'gone.example.com', to_ids: true, deleted: true },
        { type: 'domain', value: 'kept.example.com', to_ids: true, deleted: false },
      ],
      Object: [{ name: 'domain-ip', deleted: true, Attribute: [{ type: 'domain', value: 'obj-gone.example.com' }] }],
    });
    expect(match('gone.example.com')).toBeUndefined();
    expect(match('obj-gone.example.com')).toBeUndefined();
    expect(match('kept.example.com')).toBe('kept.example.com');
    expect(reasons).toEqual({ deleted: 2 });
  });

  it('keeps attributes whose correlation is disabled in MISP, and says so in their evidence', () => {
    const { result } = read({
      Attribute: [{ type: 'ip-dst', value: '198.51.100.7', to_ids: true, disable_correlation: true }],
    });
    expect(result.rules).toHaveLength(1);
    expect(result.rules[0]?.tag.correlates).toBe(false);
  });

  it('keeps tags, category, comment, object and times as evidence, links as references', () => {
    const { result } = read({
      Orgc: { name: 'CIRCL', uuid: '55f6ea5e-2c60-40e5-964f-47a8950d210f' },
      Tag: [{ name: 'tlp:white' }, { name: 'misp-galaxy:malpedia="Emotet"' }, { colour: '#fff' }],
      Attribute: [
        { type: 'link', value: 'https://blog.example.com/report', to_ids: false },
        { type: 'link', value: 'javascript:alert(1)', to_ids: false },
        {
          type: 'ip-dst',
          value: '198.51.100.7',
          category: 'Network activity',
          comment: 'C2\nserver',
          to_ids: true,
          timestamp: '1768435200',
          first_seen: '2026-01-01T00:00:00+00:00',
          Tag: [{ name: 'kill-chain:command-and-control' }],
        },
      ],
    });
    expect(result.summary).toEqual({
      uuid: UUID,
      info: 'OSINT test',
      org: 'CIRCL',
      date: '2026-01-15',
      tags: ['tlp:white', 'misp-galaxy:malpedia="Emotet"'],
      references: [`urn:uuid:${UUID}`, 'https://blog.example.com/report'],
    });
    expect(result.rules).toHaveLength(1);
    expect(result.rules[0]?.tag).toMatchObject({
      type: 'ip-dst',
      category: 'Network activity',
      comment: 'C2\nserver',
      tags: ['kill-chain:command-and-control'],
      firstSeen: '2026-01-01T00:00:00.000Z',
      lastSeen: '2026-01-15T00:00:00.000Z',
      correlates: true,
    });
  });

  it('skips, with a reason, attributes of the wrong shape and values that are not valid indicators', () => {
    const { reasons, result } = read({
      Attribute: [
        'not an object',
        { type: 7, value: 'x' },
        { type: 'domain', value: 42, to_ids: true },
        { type: 'domain', value: 'ok.example.com', to_ids: 'yes' },
        { type: 'domain', value: '198.51.100.7', to_ids: true },
        { type: 'ip-dst', value: '198.51.100.7\n0.0.0.0/0', to_ids: true },
        { type: 'ip-dst', value: '10.0.0.0/99', to_ids: true },
        { type: 'url', value: '/gate.php', to_ids: true },
        { type: 'text', value: 'free text', to_ids: true },
        { type: 'domain|ip', value: 'no-bar.example.com', to_ids: true },
      ],
    });
    expect(result.rules).toEqual([]);
    expect(reasons).toEqual({
      'not a MISP attribute': 4,
      'not a valid indicator': 4,
      'type threatlib does not look up': 2,
    });
    // The reason names the attribute and escapes what it quotes.
    expect(result.skips.first.map((skip) => skip.attribute)).toEqual([
      'Attribute[0]',
      'Attribute[1]',
      'Attribute[2] ("domain")',
      'Attribute[3] ("domain")',
      'Attribute[4] ("domain")',
    ]);
  });

  it('reads the wrappings MISP accepts and refuses a file that is not the event the manifest names', () => {
    const attribute = { type: 'domain', value: 'wrapped.example.com', to_ids: true };
    const event = { Event: { uuid: UUID, info: 'x', Attribute: [attribute] } };
    for (const text of [
      JSON.stringify(event),
      JSON.stringify([event]),
      JSON.stringify({ response: [event] }),
      JSON.stringify({ response: event }),
    ]) {
      const result = readMispEvent(text, UUID.toUpperCase(), DEFAULTS);
      expect('rules' in result && result.rules.map((rule) => rule.entry)).toEqual(['wrapped.example.com']);
    }
    expect(readMispEvent(eventText({}, '11111111-2222-4333-8444-555555555555'), UUID, DEFAULTS)).toEqual({
      problem: 'the event file is event "11111111-2222-4333-8444-555555555555", not the one the manifest names',
    });
    expect(readMispEvent('{"Event": {"info": "no uuid"}}', UUID, DEFAULTS)).toEqual({
      problem: 'the event file holds no {"Event": {...}} with a uuid',
    });
    expect(readMispEvent('[]', UUID, DEFAULTS)).toHaveProperty('problem');
    expect(readMispEvent('null', UUID, DEFAULTS)).toHaveProperty('problem');
    expect(readMispEvent('{"Event": ', UUID, DEFAULTS)).toEqual({
      problem: expect.stringMatching(/^the event file is not JSON/),
    });
  });

  it('refuses JSON nested deeper than any MISP event, and a key given twice, before parsing', () => {
    const deep = `{"Event": {"uuid": "${UUID}", "Attribute": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    expect(readMispEvent(deep, UUID, DEFAULTS)).toEqual({ problem: 'the event file is nested deeper than 64 levels' });
    const twice = `{"Event": {"uuid": "${UUID}", "uuid": "11111111-2222-4333-8444-555555555555"}}`;
    expect(readMispEvent(twice, UUID, DEFAULTS)).toEqual({
      problem: 'the event file has the key "uuid" twice in one object',
    });
  });

  it('counts, rather than fails on, lists of the wrong type', () => {
    const { reasons, result } = read({
      Attribute: { type: 'domain', value: 'x.example.com' },
      Object: 'nope',
      Tag: 'x',
    });
    expect(result.rules).toEqual([]);
    expect(reasons).toEqual({ 'Attribute is not a list': 1, 'Object is not a list': 1 });
    expect(result.summary.tags).toEqual([]);
  });

  it('matches exactly with match "exact"', () => {
    const { match } = read(
      { Attribute: [{ type: 'domain', value: 'evil.example.com', to_ids: true }] },
      { match: 'exact' },
    );
    expect(match('evil.example.com')).toBe('evil.example.com');
    expect(match('sub.evil.example.com')).toBeUndefined();
  });
});
