import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quotaSlices, shareOf } from './quota-slices.js';

/** Requests a token bucket of `rate`/s and `burst` refuses, checked at each arrival (as a feed checks them). */
function refusedByBucket(times: readonly number[], rate: number, burst: number): number {
  let tokens = burst;
  let at = times[0] ?? 0;
  let refused = 0;
  for (const time of [...times].sort((a, b) => a - b)) {
    tokens = Math.min(burst, tokens + ((time - at) * rate) / 1000);
    at = time;
    if (tokens >= 1 - 1e-9) tokens -= 1;
    else refused += 1;
  }
  return refused;
}

/** The most requests within any span of `spanMs` (both ends included). */
function busiest(times: readonly number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) > spanMs) start += 1;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

/**
 * The worst a cluster can do within the slices: each slice's points used at any moments of the slice (`where`
 * picks them, 0 = the slice's first ms, 1 = its last), or at its start for a reserved slice.
 */
function worstCase(slice: { sliceMs: number; points: number; reserve: boolean }, slices: number, where: number[]) {
  const times: number[] = [];
  let k = 0;
  for (let i = 0; i < slices; i++) {
    for (let p = 0; p < slice.points; p++) {
      const offset = slice.reserve ? 0 : Math.floor((where[k++ % where.length] as number) * (slice.sliceMs - 1));
      times.push(i * slice.sliceMs + offset);
    }
  }
  return times;
}

describe('quotaSlices', () => {
  it('keeps a per-second rate with burst: whatever moments the processes pick, a token bucket refuses none', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 500, noNaN: true }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (rate, burst, where) => {
          const [slice] = quotaSlices({ requestsPerSecond: rate, burstSize: burst });
          if (!slice) throw new Error('no slice');
          const times = worstCase(slice, 40, where);
          expect(refusedByBucket(times, rate, burst)).toBe(0);
          // Near the quota over a long run: at least 90% of the rate (2% margin, whole ms, whole points).
          expect(slice.points / slice.sliceMs).toBeGreaterThanOrEqual((rate / 1000) * 0.9 - 1 / slice.sliceMs);
        },
      ),
    );
  });

  it('keeps a minute, hour or day window: no span of the window holds more than its limit', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(['requestsPerMinute', 60_000] as const, ['requestsPerHour', 3_600_000] as const),
        fc.integer({ min: 1, max: 20_000 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 50 }),
        ([key, spanMs], limit, where) => {
          const [slice] = quotaSlices({ [key]: limit });
          if (!slice) throw new Error('no slice');
          const times = worstCase(slice, slice.span * 3, where);
          expect(busiest(times, spanMs)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('admits most of a window (VirusTotal public: 3 of 4 a minute, 480 of 500 a day)', () => {
    const [minute, day] = quotaSlices({ requestsPerMinute: 4, requestsPerDay: 500 });
    expect(minute).toMatchObject({ window: 'minute', points: 1, span: 3 });
    expect((day?.points ?? 0) * (day?.span ?? 0)).toBeGreaterThanOrEqual(480);
  });

  it('spaces requests of a burst of 1 by reserving the start of the next slice', () => {
    const [slice] = quotaSlices({ requestsPerSecond: 5, burstSize: 1 });
    expect(slice).toMatchObject({ points: 1, reserve: true });
    expect(slice?.sliceMs).toBeGreaterThanOrEqual(200);
  });
});

describe('shareOf', () => {
  it('divides every window by the peers, at least one request each', () => {
    expect(shareOf({ requestsPerSecond: 6, burstSize: 6, requestsPerMinute: 4, requestsPerDay: 500 }, 3)).toEqual({
      requestsPerSecond: 2,
      burstSize: 2,
      requestsPerMinute: 1,
      requestsPerHour: undefined,
      requestsPerDay: 166,
    });
    expect(shareOf({ requestsPerSecond: 10 }, 1)).toEqual({ requestsPerSecond: 10 });
  });
});
