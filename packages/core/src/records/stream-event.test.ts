import { describe, expect, it } from 'vitest';
import { parseRecord } from './parse-record.js';
import { StreamEventSchema, streamEventFor } from './stream-event.js';

const documented = {
  indicator: '198.51.100.4',
  threatLevel: 'high',
  sources: ['feed_abuse'],
  timestamp: 1_767_225_600_000,
};

describe('StreamEventSchema', () => {
  it("accepts the documented event, threatLevel 'high'", () => {
    expect(parseRecord(StreamEventSchema, documented, 'stream event')).toEqual(documented);
    expect(parseRecord(StreamEventSchema, { ...documented, threatLevel: 'HIGH' }, 'stream event').threatLevel).toBe(
      'high',
    );
  });

  it.each([
    [{ threatLevel: 8 }, 'threatLevel: expected one of low, medium, high, critical'],
    [{ threatLevel: 'severe' }, 'threatLevel: expected one of low, medium, high, critical, got "severe"'],
    [{ timestamp: '2026-01-01T00:00:00Z' }, 'timestamp: expected epoch milliseconds'],
    [{ timestamp: -1 }, 'timestamp: expected epoch milliseconds (not negative)'],
    [{ sources: 'feed_abuse' }, 'sources: '],
    [{ extra: true }, 'extra: unknown field'],
  ])('refuses %j, naming the field', (change, message) => {
    expect(() => parseRecord(StreamEventSchema, { ...documented, ...change }, 'stream event')).toThrow(message);
  });
});

describe('streamEventFor', () => {
  it('takes the threat level from the risk score and the sources that flagged it', () => {
    const contributions = [
      { feed: 'feed_abuse', verdict: 'malicious' as const },
      { feed: 'feed_otx', verdict: 'clean' as const },
      { feed: 'feed_cti', verdict: 'suspicious' as const },
    ];
    expect(streamEventFor({ indicator: '198.51.100.4', riskScore: 8, contributions } as never, 5)).toEqual({
      indicator: '198.51.100.4',
      threatLevel: 'high',
      sources: ['feed_abuse', 'feed_cti'],
      timestamp: 5,
    });
  });
});
