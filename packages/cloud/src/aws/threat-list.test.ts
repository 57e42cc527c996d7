import { describe, expect, it } from 'vitest';
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
      threat('domain', 'evil.example', 99),
      threat('ipv6', '2001:db8::1', 95),
      threat('url', 'http://evil.example/x', 99),
      threat('sha256', 'a'.repeat(64), 99),
      threat('domain', 'bad.example', 99),
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
