import { describe, expect, it } from 'vitest';
import { shiftDates } from './fixture-dates.js';

const HOUR = 3_600_000;

describe('shiftDates', () => {
  it('gives back the very value when the shift is under a second', () => {
    const body = { at: '2025-11-20T08:14:03+00:00', n: 1 };
    expect(shiftDates(body, 0)).toBe(body);
    expect(shiftDates(body, 999)).toBe(body);
  });

  it('moves each form of date in place, keeping its zone suffix, fraction digits and separators', () => {
    const moved = shiftDates(
      {
        offset: '2025-11-20T23:14:03+02:00',
        zulu: '2024-06-01T00:00:00Z',
        micro: '2024-02-10T06:40:12.650000',
        spaced: '2024-02-09 13:41:05 UTC',
        spacedBare: '2024-02-09 11:09:23',
        day: '2024-02-29',
        list: ['2024-12-31T23:00:00Z'],
      },
      26 * HOUR + 1_500,
    );
    expect(moved).toEqual({
      offset: '2025-11-22T01:14:04+02:00',
      zulu: '2024-06-02T02:00:01Z',
      micro: '2024-02-11T08:40:13.650000',
      spaced: '2024-02-10 15:41:06 UTC',
      spacedBare: '2024-02-10 13:09:24',
      // A bare date moves by whole days, the shift rounded: 26 h is one day.
      day: '2024-03-01',
      list: ['2025-01-02T01:00:01Z'],
    });
  });

  it('leaves alone texts that only mention a date, numbers, and keyed forms it was not told about', () => {
    const body = {
      name: 'Webscanners 2024-02',
      link: 'https://blog.example-research.org/2024/02/x/',
      sentence: 'seen 2024-02-09 13:41:05 UTC and later',
      last_analysis_date: 1_717_200_000,
      engine_update: '20240531',
      count: 20_240_531,
    };
    expect(shiftDates(body, 48 * HOUR)).toEqual(body);
    expect(shiftDates(body, 48 * HOUR, { epochSeconds: /_date$/, compactDate: /^engine_update$/ })).toEqual({
      ...body,
      last_analysis_date: 1_717_200_000 + 48 * 3600,
      engine_update: '20240602',
    });
  });

  it('moves back as well as forward', () => {
    expect(shiftDates({ at: '2024-01-01T00:00:00Z', day: '2024-01-01' }, -24 * HOUR)).toEqual({
      at: '2023-12-31T00:00:00Z',
      day: '2023-12-31',
    });
  });
});
