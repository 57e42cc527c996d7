import { compileUdmQuery, readUdmEvent } from '@threatlib/siem-emulator';
import { describe, expect, it } from 'vitest';
import { alertUdmEvent } from './udm-events.js';
import { enrichmentQuery, summariseSearch, udmString } from './udm-search.js';

const product = { vendorName: 'threatlib', productName: 'threatlib', productVersion: '0.0.0' };

describe('UDM search of an indicator', () => {
  it('quotes values as UDM string literals: backslash and double quote escaped', () => {
    expect(udmString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(
      compileUdmQuery(`target.url = ${udmString('a"b\\c')}`)(
        readUdmEvent(
          {
            metadata: { eventTimestamp: '2026-01-01T00:00:00Z', eventType: 'GENERIC_EVENT' },
            target: { url: 'a"b\\c' },
          },
          'udm',
        ),
      ),
    ).toBe(true);
  });

  it('finds the event the connector writes for every kind of indicator, and not another indicator’s', () => {
    const indicators = [
      { type: 'ipv4', value: '198.51.100.7' },
      { type: 'ipv6', value: '2001:db8::1' },
      { type: 'domain', value: 'evil-login.com' },
      { type: 'url', value: 'https://evil-login.com/kit' },
      { type: 'md5', value: 'd'.repeat(32) },
      { type: 'sha1', value: 'e'.repeat(40) },
      { type: 'sha256', value: 'f'.repeat(64) },
      { type: 'email', value: 'billing@evil-login.com' },
    ] as const;
    const events = indicators.map((indicator, i) =>
      readUdmEvent(
        alertUdmEvent(
          {
            id: `a${i}`,
            title: 't',
            severity: 'low',
            // Each indicator once as the target (first) and once among the about nouns (second).
            indicators: i % 2 === 0 ? [indicator] : [{ type: 'ipv4', value: '192.0.2.1' }, indicator],
            timestamp: '2026-01-01T00:00:00Z',
            deliveries: [],
          },
          product,
        ).udm,
        'udm',
      ),
    );
    indicators.forEach((indicator, i) => {
      const matches = compileUdmQuery(enrichmentQuery(indicator));
      expect(events.map(matches), enrichmentQuery(indicator)).toEqual(events.map((_, j) => j === i));
    });
  });
});

describe('reading udmSearch’s answer', () => {
  const at = (iso: string, securityResult?: unknown[]) => ({
    name: 'n',
    udm: {
      metadata: { eventTimestamp: iso, eventType: 'GENERIC_EVENT' },
      ...(securityResult ? { securityResult } : {}),
    },
  });

  it('reduces the events to the first and last time, the count and the highest risk', () => {
    const body = JSON.stringify({
      events: [
        at('2026-01-03T00:00:00.5Z', [{ riskScore: 3 }]),
        at('2026-01-01T00:00:00Z', [{ severity: 'CRITICAL' }, { riskScore: 4 }]),
        at('2026-01-02T00:00:00Z'),
      ],
      moreDataAvailable: false,
    });
    expect(summariseSearch(body)).toEqual({
      count: 3,
      first: Date.parse('2026-01-01T00:00:00Z'),
      last: Date.parse('2026-01-03T00:00:00.500Z'),
      risk: 10,
      truncated: false,
    });
  });

  it('answers no events as a count of zero, and says when Chronicle held back more', () => {
    expect(summariseSearch('{}')).toEqual({ count: 0, risk: 0, truncated: false });
    expect(
      summariseSearch(JSON.stringify({ events: [at('2026-01-01T00:00:00Z')], moreDataAvailable: true })),
    ).toMatchObject({
      count: 1,
      truncated: true,
    });
    expect(() => summariseSearch('<html>')).toThrow();
    expect(() => summariseSearch('{"events": 3}')).toThrow(/not a list/);
  });
});
