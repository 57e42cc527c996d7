import { ValidationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { renderStixThreatList } from './stix-threat-list.js';
import type { ThreatIndicator } from './threat-indicators.js';
import { GUARDDUTY_MAX_ENTRIES, renderTxtThreatList } from './threat-list.js';

function threat(type: ThreatIndicator['type'], value: string, confidence: number): ThreatIndicator {
  const at = '2026-01-01T00:00:00.000Z';
  return { type, value, confidence, sources: [], firstSeen: at, lastSeen: at };
}

describe('renderTxtThreatList (GuardDuty plaintext)', () => {
  it('writes one IP address per line, most confident first, and counts the types an IP list cannot hold', () => {
    const list = renderTxtThreatList([
      threat('ipv4', '198.51.100.7', 90),
      threat('domain', 'evil.com', 99),
      threat('ipv6', '2001:db8::1', 95),
      threat('url', 'http://evil.com/x', 99),
      threat('sha256', 'a'.repeat(64), 99),
      threat('domain', 'bad.com', 99),
      threat('ipv4', '192.0.2.1', 90),
    ]);
    expect(list.body).toBe('2001:db8::1\n192.0.2.1\n198.51.100.7\n');
    expect(list.skipped).toEqual({ domain: 2, url: 1, sha256: 1 });
    expect(list.truncated).toBe(0);
    expect(list.contentType).toMatch(/^text\/plain/);
  });

  it('an empty list is an empty file', () => {
    expect(renderTxtThreatList([]).body).toBe('');
  });

  it(`keeps at most ${GUARDDUTY_MAX_ENTRIES} entries, leaving out the least confident`, () => {
    const many: ThreatIndicator[] = [];
    for (let i = 0; i < GUARDDUTY_MAX_ENTRIES + 5; i++) {
      const value = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      many.push(threat('ipv4', value, i < 5 ? 10 : 90));
    }
    const list = renderTxtThreatList(many);
    expect(list.included).toHaveLength(GUARDDUTY_MAX_ENTRIES);
    expect(list.truncated).toBe(5);
    expect(list.included.every((t) => t.confidence === 90)).toBe(true);
    expect(list.body.split('\n').filter(Boolean)).toHaveLength(GUARDDUTY_MAX_ENTRIES);
  });
});

function refusal(render: () => unknown): ValidationError {
  try {
    render();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('not refused');
}

// Issue 21, finding 5: a value from a custom source, or from alerts read back from a shared database, is checked
// where it is written; one value never becomes two lines.
describe('every value is checked where the list is written', () => {
  it('refuses a value that would be two lines (0.0.0.0/0 would flag all traffic), naming it; nothing is written', () => {
    const error = refusal(() =>
      renderTxtThreatList([threat('ipv4', '192.0.2.1', 90), threat('ipv4', '198.51.100.7\n0.0.0.0/0', 90)]),
    );
    expect(error.message).toBe(
      'Invalid threat list: indicators[1]: Invalid indicator "198.51.100.7\\n0.0.0.0/0": contains whitespace (U+000A); an indicator is a single token',
    );
  });

  it.each([
    ['NUL', '198.51.100.7\u00000.0.0.0'],
    ['CR', '198.51.100.7\r0.0.0.0'],
    ['NEL', '198.51.100.7\u00850.0.0.0'],
    ['LINE SEPARATOR', '198.51.100.7\u20280.0.0.0'],
    ['a CIDR range', '0.0.0.0/0'],
    ['a domain', 'evil.com'],
    ['a comment', '198.51.100.7 # ok'],
  ])('refuses an ipv4 value with %s, the message on one line', (_name, value) => {
    const error = refusal(() => renderTxtThreatList([threat('ipv4', value, 90)]));
    expect(error.issues).toHaveLength(1);
    expect(error.message).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
  });

  it('refuses an unknown type rather than count it under a name like __proto__ or constructor', () => {
    const error = refusal(() =>
      renderTxtThreatList([
        threat('__proto__' as never, '198.51.100.7', 90),
        threat('constructor' as never, '198.51.100.8', 90),
      ]),
    );
    expect(error.issues.map((issue) => issue.path)).toEqual(['indicators[0]', 'indicators[1]']);
    expect(error.message).toContain('unknown indicator type "__proto__"');
  });

  it('names the first ten refused values and counts the others', () => {
    const bad = Array.from({ length: 25 }, (_, i) => threat('ipv4', `10.0.0.${i}\n0.0.0.0/0`, 90));
    const error = refusal(() => renderTxtThreatList(bad));
    expect(error.issues).toHaveLength(11);
    expect(error.issues[10]).toEqual({ path: 'indicators', message: 'and 15 more refused the same way' });
  });

  it('refuses a huge value without quoting it whole', () => {
    const error = refusal(() => renderTxtThreatList([threat('ipv4', `${'1'.repeat(5_000_000)}\n0.0.0.0/0`, 90)]));
    expect(error.message.length).toBeLessThan(500);
  });

  it('writes a valid value in its normalised form, once', () => {
    const list = renderTxtThreatList([
      threat('ipv6', '2001:DB8:0:0:0:0:0:1', 90),
      threat('ipv6', '2001:db8::1', 80),
      threat('ipv4', ' 192.0.2.1 ', 70),
    ]);
    expect(list.body).toBe('2001:db8::1\n192.0.2.1\n');
    expect(list.included.map((indicator) => indicator.confidence)).toEqual([90, 70]);
  });

  it('the STIX list refuses the same values, and leaves domains in', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(refusal(() => renderStixThreatList([threat('domain', 'evil.com\nother.com', 90)], now)).message).toContain(
      'indicators[0]: Invalid indicator "evil.com\\nother.com"',
    );
    const bundle = JSON.parse(renderStixThreatList([threat('domain', 'Evil.COM', 90)], now).body);
    expect(bundle.objects[1].pattern).toBe("[domain-name:value = 'evil.com']");
  });
});
