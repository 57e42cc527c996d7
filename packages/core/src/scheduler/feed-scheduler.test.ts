import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../errors/rate-limit-error.js';
import { ManualClock } from './clock.js';
import type { QuotaWindows } from './default-quotas.js';
import { FeedScheduler } from './feed-scheduler.js';

function setup(quotas: Record<string, QuotaWindows>, concurrency = 10) {
  const clock = new ManualClock(0);
  const scheduler = new FeedScheduler({ concurrency, clock, quotaFor: (feed) => quotas[feed] ?? {} });
  const sent: Array<[string, number]> = [];
  const ask = (feed: string, options = {}) =>
    scheduler.schedule(
      feed,
      async () => {
        sent.push([feed, clock.now()]);
        return feed;
      },
      options,
    );
  return { clock, scheduler, sent, ask };
}

describe('FeedScheduler', () => {
  it('makes an exhausted quota wait, then completes the batch as the window refills', async () => {
    const { clock, sent, ask } = setup({ feed_scan: { requestsPerMinute: 4 } });
    const batch = Array.from({ length: 10 }, () => ask('feed_scan'));
    const settled = Promise.allSettled(batch);
    await clock.advance(0);
    expect(sent).toHaveLength(4);
    await clock.advance(60_601);
    expect(sent).toHaveLength(8);
    await clock.advance(60_601);
    const results = await settled;
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(sent.map(([, t]) => t)).toEqual([0, 0, 0, 0, 60_601, 60_601, 60_601, 60_601, 121_202, 121_202]);
  });

  it('does not let one feed waiting for its quota hold up another', async () => {
    const { clock, sent, ask } = setup({ slow: { requestsPerMinute: 1 } }, 1);
    const work = [ask('slow'), ask('slow'), ask('fast'), ask('fast')];
    await clock.advance(0);
    expect(sent.map(([f]) => f)).toEqual(['slow', 'fast', 'fast']);
    await clock.advance(60_601);
    await Promise.all(work);
    expect(sent.map(([f]) => f)).toEqual(['slow', 'fast', 'fast', 'slow']);
  });

  it('fails a request whose deadline the quota cannot meet, naming the window', async () => {
    const { clock, ask } = setup({ feed_cti: { requestsPerDay: 1 } });
    await ask('feed_cti');
    const late = ask('feed_cti', { deadline: clock.now() + 30_000 });
    const error = await late.catch((e: unknown) => e);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ feed: 'feed_cti', window: 'day', availableAt: 86_401_001 });
    expect((error as Error).message).toMatch(/^feed_cti: no room in its day quota \(1\/day\) before the deadline/);
  });

  it('holds a paused feed until the pause ends', async () => {
    const { clock, scheduler, sent, ask } = setup({});
    scheduler.pause('feed_otx', 5_000);
    const pending = ask('feed_otx');
    await clock.advance(4_999);
    expect(sent).toEqual([]);
    await clock.advance(1);
    await pending;
    expect(sent).toEqual([['feed_otx', 5_000]]);
  });

  it('applies a new concurrency to queued work without dropping any', async () => {
    const clock = new ManualClock(0);
    const scheduler = new FeedScheduler({ concurrency: 1, clock, quotaFor: () => ({}) });
    const release: Array<() => void> = [];
    let running = 0;
    let peak = 0;
    const jobs = Array.from({ length: 8 }, () =>
      scheduler.schedule('f', () => {
        running += 1;
        peak = Math.max(peak, running);
        return new Promise<void>((resolve) =>
          release.push(() => {
            running -= 1;
            resolve();
          }),
        );
      }),
    );
    await clock.advance(0);
    expect(running).toBe(1);
    scheduler.setConcurrency(5);
    await clock.advance(0);
    expect(running).toBe(5);
    while (release.length > 0) {
      release.shift()?.();
      await clock.advance(0);
    }
    await Promise.all(jobs);
    expect(peak).toBe(5);
  });

  it('lets an aborted request leave the queue', async () => {
    const { clock, scheduler, ask } = setup({ f: { requestsPerMinute: 1 } });
    await ask('f');
    const controller = new AbortController();
    const waiting = ask('f', { signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(scheduler.status('f').queued).toBe(0);
    await clock.advance(0);
  });
});
