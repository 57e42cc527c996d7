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
 * What the shared counters let go of `attempts` (ms, any order: several processes asking at once), by the rule the
 * cluster applies atomically in Redis: a request goes while the current slice and the `slices` before it hold fewer
 * than `limit`.
 */
function admitted(slice: { sliceMs: number; slices: number; limit: number }, attempts: readonly number[]): number[] {
  const counts = new Map<number, number>();
  const out: number[] = [];
  for (const time of [...attempts].sort((a, b) => a - b)) {
    const index = Math.floor(time / slice.sliceMs);
    let sum = 0;
    for (let i = 0; i <= slice.slices; i++) sum += counts.get(index - i) ?? 0;
    if (sum >= slice.limit) continue;
    counts.set(index, (counts.get(index) ?? 0) + 1);
    out.push(time);
  }
  return out;
}

/** Attempts clustered in bursts (as many processes with queued work send them), over `spanMs`. */
const attemptsOver = (spanMs: number) =>
  fc
    .array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 60 })), {
      minLength: 1,
      maxLength: 60,
    })
    .map((bursts) =>
      bursts.flatMap(([at, n]) => Array.from({ length: n }, (_, i) => Math.floor(at * spanMs) + (i % 3))),
    );

describe('quotaSlices', () => {
  it('keeps a per-second rate with burst: whatever moments the processes pick, a token bucket refuses none', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 500, noNaN: true }),
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rate, burst, shape) => {
          const [slice] = quotaSlices({ requestsPerSecond: rate, burstSize: burst });
          if (!slice) throw new Error('no slice');
          const spanMs = Math.ceil((4000 * burst) / rate) + 1000;
          const attempts = fc.sample(attemptsOver(spanMs), { numRuns: 1, seed: Math.floor(shape * 1e6) })[0] ?? [];
          expect(refusedByBucket(admitted(slice, attempts), rate, burst)).toBe(0);
        },
      ),
    );
  });

  it("lets the usable burst go at once (the quota's less 150 ms of its rate), and most of the rate over time", () => {
    const [slice] = quotaSlices({ requestsPerSecond: 100, burstSize: 50 });
    if (!slice) throw new Error('no slice');
    const burst = admitted(
      slice,
      Array.from({ length: 100 }, () => 0),
    );
    expect(burst).toHaveLength(35);
    // Asking every ms for 10 s: at least 90% of the rate.
    const steady = admitted(
      slice,
      Array.from({ length: 10_000 }, (_, i) => i),
    );
    expect(steady.length).toBeGreaterThanOrEqual(0.9 * 100 * 10);
  });

  it('keeps a minute, hour or day window: no span of the window holds more than its limit', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(['requestsPerMinute', 60_000] as const, ['requestsPerHour', 3_600_000] as const),
        fc.integer({ min: 1, max: 2_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        ([key, spanMs], limit, seed) => {
          const [slice] = quotaSlices({ [key]: limit });
          if (!slice) throw new Error('no slice');
          const attempts = fc.sample(attemptsOver(spanMs * 3), { numRuns: 1, seed })[0] ?? [];
          expect(busiest(admitted(slice, attempts), spanMs)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('lets a whole minute, hour or day window go at once (VirusTotal public: 4 a minute, 500 a day)', () => {
    const [minute, day] = quotaSlices({ requestsPerMinute: 4, requestsPerDay: 500 });
    if (!minute || !day) throw new Error('no slice');
    expect(admitted(minute, [0, 0, 0, 0, 0, 0])).toHaveLength(4);
    expect(
      admitted(
        day,
        Array.from({ length: 600 }, () => 0),
      ),
    ).toHaveLength(500);
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
