import { describe, expect, it } from 'vitest';
import { EnrichedIndicatorSchema } from './enriched-indicator.js';
import { parseRecord } from './parse-record.js';

const documented = {
  indicator: '198.51.100.7',
  firstSeen: '2026-01-02T03:04:05Z',
  lastSeen: '2026-02-01T00:00:00.000+01:00',
  associatedEvents: 12,
  riskScore: 7.5,
};

describe('EnrichedIndicatorSchema', () => {
  it('accepts the documented record', () => {
    expect(parseRecord(EnrichedIndicatorSchema, documented, 'enriched indicator')).toEqual(documented);
  });

  it.each([
    [{ firstSeen: 'yesterday' }, 'firstSeen: expected an ISO 8601 date-time'],
    [{ associatedEvents: 1.5 }, 'associatedEvents: expected a whole number'],
    [{ riskScore: -1 }, 'riskScore: '],
    [{ lastSeen: '2025-12-31T00:00:00Z' }, 'lastSeen: is before firstSeen'],
    [{ indicator: undefined }, 'indicator: '],
  ])('refuses %j, naming the field', (change, message) => {
    expect(() => parseRecord(EnrichedIndicatorSchema, { ...documented, ...change }, 'enriched indicator')).toThrow(
      message,
    );
  });
});
