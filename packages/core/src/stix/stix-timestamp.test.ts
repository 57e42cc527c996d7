import { describe, expect, it } from 'vitest';
import { parseStixTimestamp, stixTimestamp } from './stix-timestamp.js';

describe('STIX and TAXII timestamps', () => {
  it('reads any sub-second precision to the microsecond, and writes six digits', () => {
    expect(parseStixTimestamp('2016-11-01T03:04:05Z')).toBe(Date.parse('2016-11-01T03:04:05Z') * 1000);
    expect(parseStixTimestamp('2016-11-01T03:04:05.1Z')).toBe(Date.parse('2016-11-01T03:04:05.100Z') * 1000);
    expect(parseStixTimestamp('2016-11-01T03:04:05.123456789Z')).toBe(
      Date.parse('2016-11-01T03:04:05.123Z') * 1000 + 456,
    );
    expect(stixTimestamp(Date.parse('2016-11-01T03:04:05.123Z') * 1000 + 456)).toBe('2016-11-01T03:04:05.123456Z');
    expect(stixTimestamp(0)).toBe('1970-01-01T00:00:00.000000Z');
    for (const text of ['2016-11-01T03:04:05.000001Z', '2024-02-29T23:59:59.999999Z', '0001-01-01T00:00:00.000000Z']) {
      expect(stixTimestamp(parseStixTimestamp(text) as number)).toBe(text);
    }
  });

  it('refuses what is not one: other formats and zones, dates that do not exist, other types', () => {
    for (const text of [
      '2016-11-01T03:04:05+01:00',
      '2016-11-01 03:04:05Z',
      '2016-11-01T03:04:05',
      '2021-02-29T00:00:00Z',
      '2016-13-01T00:00:00Z',
      '2016-11-01T24:00:00Z',
      '２０１６-11-01T03:04:05Z',
      `2016-11-01T03:04:05.${'1'.repeat(40)}Z`,
      '',
    ]) {
      expect(parseStixTimestamp(text), text).toBeUndefined();
    }
    expect(parseStixTimestamp(12)).toBeUndefined();
  });
});
