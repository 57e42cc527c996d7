import { describe, expect, it } from 'vitest';
import { toCsv } from './export.js';
import type { ScanResult } from './types.js';

const result = (indicator: string): ScanResult => ({
  indicator,
  type: 'url',
  verdict: 'malicious',
  isThreat: true,
  riskScore: 9,
  confidence: 87.5,
  consensus: 2,
  results: [],
  startedAt: '2026-11-28T05:00:00.000Z',
  durationMs: 12,
});

describe('toCsv', () => {
  it('writes a header and one quoted-where-needed line per verdict, CRLF', () => {
    expect(toCsv([result('http://evil.example/a,b"c')])).toBe(
      'indicator,type,verdict,isThreat,riskScore,confidence,consensus,startedAt\r\n' +
        '"http://evil.example/a,b""c",url,malicious,true,9,87.5,2,2026-11-28T05:00:00.000Z\r\n',
    );
  });

  it('never writes a field a spreadsheet would run as a formula', () => {
    const csv = toCsv([result('=HYPERLINK("http://x")'), result('+1'), result('-2'), result('@SUM(A1)')]);
    const first = csv
      .trimEnd()
      .split('\r\n')
      .slice(1)
      .map((line) => line.replace(/^"/, ''));
    for (const field of first) expect(field).toMatch(/^'/);
  });
});
