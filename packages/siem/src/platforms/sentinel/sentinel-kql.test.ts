import { runKql, THREATLIB_ALERT_COLUMNS } from '@threatlib/siem-emulator';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { enrichmentQuery, kqlString } from './sentinel-kql.js';

/**
 * Any Unicode scalar value as a string, as `fc.string({unit: 'binary'})` draws them, with the characters a literal
 * must escape drawn more often. Not fast-check's 'binary' unit itself: making that one builds a map of all 1.1 million
 * code points (about 3 s of one core, once per process), which ran inside this test's time limit.
 */
const anyCharacter = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .integer({ min: 0, max: 0x10ffff - 0x800 })
      .map((n) => String.fromCodePoint(n < 0xd800 ? n : n + 0x800)),
  },
  { weight: 1, arbitrary: fc.constantFrom("'", '\\', '"', '\n', '\r', '\t', '\u0000', '\u2028') },
);

/** Runs `where Value == <literal>` over one row holding `value`, with the emulator's strict KQL reader. */
function matches(value: string, literal: string): boolean {
  const tables = new Map([['T', { columns: [{ name: 'Value', type: 'string' as const }], rows: [{ Value: value }] }]]);
  return runKql(`T | where Value == ${literal} | count`, tables).rows[0]?.[0] === 1;
}

describe('kqlString', () => {
  it('escapes quotes, backslashes, tabs and line breaks the way Kusto reads them', () => {
    expect(kqlString(`it's a \\ "test"\n\t\r`)).toBe(`'it\\'s a \\\\ "test"\\n\\t\\r'`);
    expect(matches(`it's a \\ "test"\n\t\r`, kqlString(`it's a \\ "test"\n\t\r`))).toBe(true);
  });

  it('carries other control characters as base64, decoded by base64_decode_tostring', () => {
    expect(kqlString('a\u0000b')).toBe(`base64_decode_tostring('${Buffer.from('a\u0000b').toString('base64')}')`);
    expect(matches('a\u0000b', kqlString('a\u0000b'))).toBe(true);
  });

  it('any string round-trips: the literal evaluates to exactly the value, and to no other', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyCharacter }), fc.string({ unit: anyCharacter }), (value, other) => {
        expect(matches(value, kqlString(value))).toBe(true);
        if (other !== value) expect(matches(other, kqlString(value))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('a hostile value cannot escape the literal to change the query', () => {
    const hostile = `x' or 1 == 1 or Value == 'y`;
    expect(matches('anything else', kqlString(hostile))).toBe(false);
    expect(matches(hostile, kqlString(hostile))).toBe(true);
  });
});

describe('enrichmentQuery', () => {
  it('is a query Log Analytics reads over the alerts table, matching type and value exactly', () => {
    const query = enrichmentQuery('ThreatlibAlerts_CL', { type: 'url', value: "http://evil.example/it's" });
    const rows = [
      {
        TimeGenerated: '2026-01-01T00:00:00Z',
        RiskScore: 3,
        Indicators: [{ type: 'url', value: "http://evil.example/it's" }],
      },
      {
        TimeGenerated: '2026-01-03T00:00:00Z',
        RiskScore: 8,
        Indicators: [{ type: 'url', value: "http://evil.example/it's" }],
      },
      {
        TimeGenerated: '2026-01-05T00:00:00Z',
        RiskScore: 9,
        Indicators: [{ type: 'domain', value: "http://evil.example/it's" }],
      },
    ];
    const result = runKql(query, new Map([['ThreatlibAlerts_CL', { columns: THREATLIB_ALERT_COLUMNS, rows }]]));
    expect(result.columns.map((c) => c.name)).toEqual(['FirstSeen', 'LastSeen', 'Events', 'RiskScore']);
    expect(result.rows).toEqual([['2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z', 2, 8]]);
  });
});
