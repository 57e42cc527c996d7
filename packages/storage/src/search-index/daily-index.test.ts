import { describe, expect, it } from 'vitest';
import { DAY_MS, dailyIndexName, dayOfDailyIndex, isPastRetention } from './daily-index.js';

describe('daily indices', () => {
  it('names the UTC day of a time, and reads exactly those names back', () => {
    const time = Date.parse('2026-03-01T23:59:59.999-05:00'); // 04:59 on March 2nd in UTC
    expect(dailyIndexName('threats', time)).toBe('threats-2026.03.02');
    expect(dayOfDailyIndex('threats', 'threats-2026.03.02')).toBe(Date.parse('2026-03-02T00:00:00Z'));
  });

  it('reads no other name as a daily index, so the sweep never touches it', () => {
    for (const name of [
      'threats',
      'threats-archive',
      'threats-2026.3.2',
      'threats-2026.02.30',
      'threats-2026.13.01',
      'threats-2026.03.02-copy',
      'threats-x-2026.03.02',
      'other-2026.03.02',
      'threats-0050.01.01',
    ]) {
      expect(dayOfDailyIndex('threats', name), name).toBeUndefined();
    }
  });

  it('an index is past retention once its whole day is older than retentionDays days', () => {
    const day = Date.parse('2026-03-01T00:00:00Z');
    const lastInstant = day + DAY_MS - 1;
    // Its last millisecond turns 30 days old at 2026-04-01T00:00:00 minus 1 ms ... and past it one ms later.
    expect(isPastRetention(day, lastInstant + 30 * DAY_MS, 30)).toBe(false);
    expect(isPastRetention(day, lastInstant + 30 * DAY_MS + 1, 30)).toBe(true);
  });
});
