import { describe, expect, it } from 'vitest';
import { ProbeCache } from './probe-cache.js';

function counting() {
  let calls = 0;
  const release: Array<() => void> = [];
  return {
    probe: () => {
      calls++;
      return Promise.resolve(calls);
    },
    held: () => {
      calls++;
      const n = calls;
      return new Promise<number>((resolve) => release.push(() => resolve(n)));
    },
    calls: () => calls,
    release: () => {
      for (const r of release.splice(0)) r();
    },
  };
}

describe('ProbeCache', () => {
  it('reuses a result for ttlMs, then probes again', async () => {
    let now = 1_000;
    const probe = counting();
    const cache = new ProbeCache(probe.probe, { ttlMs: 5_000, now: () => now });
    expect(await cache.get()).toBe(1);
    now += 4_999;
    expect(await cache.get()).toBe(1);
    now += 1;
    expect(await cache.get()).toBe(2);
    expect(probe.calls()).toBe(2);
  });

  it('shares one running probe between concurrent callers, even with ttlMs 0', async () => {
    const probe = counting();
    const cache = new ProbeCache(probe.held, { ttlMs: 0 });
    const all = Promise.all(Array.from({ length: 100 }, () => cache.get()));
    probe.release();
    expect(await all).toEqual(Array(100).fill(1));
    const next = cache.get();
    probe.release();
    expect(await next).toBe(2);
  });

  it('does not keep a failed probe', async () => {
    let fail = true;
    let calls = 0;
    const cache = new ProbeCache(
      async () => {
        calls++;
        if (fail) throw new Error('down');
        return 'up';
      },
      { ttlMs: 60_000 },
    );
    await expect(cache.get()).rejects.toThrow('down');
    fail = false;
    expect(await cache.get()).toBe('up');
    expect(calls).toBe(2);
  });

  it('refuses a negative time', () => {
    expect(() => new ProbeCache(async () => 1, { ttlMs: -1 })).toThrow(/0 or more/);
  });
});
