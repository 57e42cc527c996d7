import { describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { QuotaLowEvent } from '../events/threat-events.js';
import type { Feed } from '../feeds/feed.js';
import { answer } from '../feeds/feed-response.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from './clock.js';
import { QuotaLowWatch } from './quota-low.js';

describe('QuotaLowWatch', () => {
  it('tells once when a minute, hour or day window falls to the threshold, again only after it had room', () => {
    const events: QuotaLowEvent[] = [];
    const watch = new QuotaLowWatch(0.1, (event) => events.push(event));
    const day = (remaining: number) => [
      { window: 'second' as const, limit: 5, remaining: 0 },
      { window: 'day' as const, limit: 500, remaining },
    ];
    watch.check('feed_scan', day(51), false);
    expect(events).toEqual([]);
    watch.check('feed_scan', day(50), false);
    watch.check('feed_scan', day(49), false);
    expect(events).toEqual([{ feed: 'feed_scan', window: 'day', limit: 500, remaining: 50, shared: false }]);
    watch.check('feed_scan', day(400), true);
    watch.check('feed_scan', day(10), true);
    expect(events.map((e) => [e.remaining, e.shared])).toEqual([
      [50, false],
      [10, true],
    ]);
  });
});

describe('client.quotas() and quotaLow', () => {
  it('reports each window of each feed as requests use it, and says when little is left', async () => {
    const feed: Feed = {
      specificationVersion: 'v1',
      id: 'feed_budget',
      name: 'Budget feed',
      supportedTypes: ['ipv4'],
      requiresKey: false,
      defaultEndpoint: 'https://feed.example.com',
      lookup: async () => answer({ status: 'ok', verdict: 'clean', score: 0 }),
    };
    const client = new ThreatClient(
      {
        sources: ['feed_cti'],
        warninglists: { builtin: false },
        performance: {
          retryAttempts: 0,
          rateLimit: { quotaLowThreshold: 0.25, perFeed: { feed_budget: { requestsPerHour: 8 } } },
        },
      },
      { env: false, logger: silentLogger, clock: new ManualClock(Date.parse('2026-06-01T00:00:00Z')) },
    );
    client.registerFeed(feed);
    const low: QuotaLowEvent[] = [];
    client.on('quotaLow', (event) => low.push(event));
    for (let i = 1; i <= 6; i++) await client.scout(`198.51.100.${i}`);
    const budget = (await client.quotas()).find((q) => q.feed === 'feed_budget');
    expect(budget).toMatchObject({
      feed: 'feed_budget',
      limits: '8/hour',
      shared: false,
      windows: [{ window: 'hour', limit: 8, remaining: 2 }],
    });
    expect(budget?.windows[0]?.resetsAt).toBeDefined();
    expect(low).toMatchObject([{ feed: 'feed_budget', window: 'hour', limit: 8, remaining: 2, shared: false }]);
  });
});
