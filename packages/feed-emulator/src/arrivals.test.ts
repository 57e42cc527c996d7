import { describe, expect, it } from 'vitest';
import { paceOf } from './arrivals.js';
import { startFeedEmulator } from './emulator.js';

describe('paceOf', () => {
  it('finds the busiest second and what a token bucket would refuse', () => {
    const quota = { requestsPerSecond: 5, burst: 5 };
    // A burst of 5, then one every 200 ms: exactly the quota.
    const kept = [0, 0, 0, 0, 0, 200, 400, 600, 800, 1000];
    expect(paceOf(kept, quota)).toEqual({ requests: 10, peak: 10, allowed: 10, overQuota: 0, burstSeen: 5 });
    // Paced at the rate, with no burst: a bucket of 1 would do.
    expect(paceOf([0, 200, 400, 600], quota).burstSeen).toBe(1);
    // A sixth at once is one too many; so is a burst after the bucket was emptied.
    expect(paceOf([0, 0, 0, 0, 0, 0], quota).overQuota).toBe(1);
    expect(paceOf([...kept, 1000, 1000], quota)).toMatchObject({ peak: 12, overQuota: 2, burstSeen: 7 });
  });

  it('reads the emulator arrival log of the requests a quota counts', async () => {
    const emulator = await startFeedEmulator({ quotas: { feed_urls: { requestsPerSecond: 1000, burst: 10 } } });
    try {
      for (const host of ['a.example', 'b.example']) {
        await fetch(`${emulator.endpoints.feed_urls}/host/`, { method: 'POST', body: new URLSearchParams({ host }) });
      }
      const log = emulator.arrivals();
      expect(log.feed_urls).toHaveLength(2);
      expect(log.feed_otx).toHaveLength(0);
      emulator.resetCounters();
      expect(emulator.arrivals().feed_urls).toHaveLength(0);
    } finally {
      await emulator.close();
    }
  });
});
