import { parseAql } from '@threatlib/siem-emulator';
import { describe, expect, it } from 'vitest';
import { containsPattern, enrichmentQuery } from './ariel-search.js';

const enrichment = { days: 30, riskScoreProperty: 'riskScore', pollInterval: 1000 } as const;

describe('the enrichment AQL', () => {
  it('matches an IP address as source, destination or in the payload; other indicators in the payload', () => {
    expect(enrichmentQuery({ type: 'ipv4', value: '198.51.100.7' }, enrichment)).toBe(
      'SELECT MIN(devicetime) AS first_seen, MAX(devicetime) AS last_seen, COUNT(*) AS event_count, ' +
        'MAX(magnitude) AS max_magnitude, MAX("riskScore") AS risk_score FROM events WHERE ' +
        "sourceip = '198.51.100.7' OR destinationip = '198.51.100.7' OR UTF8(payload) ILIKE '%198.51.100.7%' LAST 30 DAYS",
    );
    expect(enrichmentQuery({ type: 'domain', value: 'evil.com' }, { ...enrichment, riskScoreProperty: false })).toBe(
      'SELECT MIN(devicetime) AS first_seen, MAX(devicetime) AS last_seen, COUNT(*) AS event_count, ' +
        "MAX(magnitude) AS max_magnitude FROM events WHERE UTF8(payload) ILIKE '%evil.com%' LAST 30 DAYS",
    );
  });

  it("never lets a value end the string literal: quotes, backslashes and wildcards become '_' (any one character)", () => {
    expect(containsPattern("https://x.com/a'b\\c%d_e f")).toBe('%https://x.com/a_b_c_d_e_f%');
    const query = enrichmentQuery({ type: 'url', value: "https://x.com/?q=' OR 1=1 --" }, enrichment);
    // The emulator's strict AQL reader sees one comparison, not an injected clause.
    expect(() => parseAql(query, Date.now(), new Set(['riskScore']))).not.toThrow();
    expect(query).toContain("ILIKE '%https://x.com/?q=__OR_1=1_--%'");
  });
});
