import { describe, expect, it } from 'vitest';
import { FeedQuota } from './feed-quota.js';
import { SlidingWindow } from './sliding-window.js';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('allows a burst, then one request per 1/rate', () => {
    const bucket = new TokenBucket(10, 3, 0);
    for (let i = 0; i < 3; i++) {
      expect(bucket.nextAvailable(0)).toBe(0);
      bucket.take(0);
    }
    expect(bucket.nextAvailable(0)).toBe(100);
    expect(bucket.nextAvailable(99)).toBe(100);
    expect(bucket.nextAvailable(100)).toBe(100);
    bucket.take(100);
    expect(bucket.nextAvailable(100)).toBe(200);
    expect(bucket.remaining(1000)).toBe(3);
  });
});

describe('SlidingWindow', () => {
  it('never lets more than limit requests into any window span', () => {
    const minute = new SlidingWindow(4, 60_000);
    const grants: number[] = [];
    let now = 0;
    while (grants.length < 20) {
      now = minute.nextAvailable(now);
      minute.take(now);
      grants.push(now);
      now += 7_000;
    }
    for (const start of grants) {
      expect(grants.filter((t) => t >= start && t < start + 60_000).length).toBeLessThanOrEqual(4);
    }
    // ...and uses every allowed request: each grant after the fourth comes right when the oldest leaves.
    expect(grants.slice(0, 5)).toEqual([0, 7_000, 14_000, 21_000, 60_001]);
  });

  it('reports remaining and when it resets', () => {
    const day = new SlidingWindow(2, 86_400_000);
    day.take(1000);
    expect(day.remaining(1000)).toBe(1);
    day.take(2000);
    expect(day.remaining(2000)).toBe(0);
    expect(day.resetsAt(2000)).toBe(86_401_001);
    expect(day.remaining(86_401_001)).toBe(1);
  });
});

describe('FeedQuota', () => {
  it('holds to every window at once and names the one that binds', () => {
    // VirusTotal's public quota: 4 a minute and 500 a day.
    const quota = new FeedQuota({ requestsPerMinute: 4, requestsPerDay: 500 }, 0);
    for (let i = 0; i < 4; i++) quota.take(0);
    // 60 s after the first request, plus the 1% safety margin (600 ms) for requests that arrive early.
    expect(quota.nextAvailable(0)).toEqual({ at: 60_601, window: 'minute', limit: '4/minute' });
    expect(quota.status(0).map((w) => [w.window, w.limit, w.remaining])).toEqual([
      ['minute', 4, 0],
      ['day', 500, 496],
    ]);
    const small = new FeedQuota({ requestsPerMinute: 4, requestsPerDay: 5 }, 0);
    for (let i = 0; i < 4; i++) small.take(0);
    small.take(60_601);
    expect(small.nextAvailable(60_601)).toMatchObject({ window: 'day', at: 86_401_001 });
  });

  it('a pause the feed asked for holds requests, and a shorter one never shortens it', () => {
    const quota = new FeedQuota({}, 0);
    expect(quota.nextAvailable(0)).toEqual({ at: 0 });
    quota.pauseUntil(5000);
    quota.pauseUntil(1000);
    expect(quota.nextAvailable(10)).toMatchObject({ at: 5000, window: 'pause' });
    expect(quota.pausedUntil(4999)).toBe(5000);
    expect(quota.pausedUntil(5000)).toBeUndefined();
  });

  it('describes its limits', () => {
    expect(new FeedQuota({ requestsPerSecond: 200, burstSize: 50, requestsPerDay: 1000 }, 0).describe).toBe(
      '200/s (burst 50), 1000/day',
    );
    expect(new FeedQuota({}, 0).describe).toBe('unlimited');
  });
});
