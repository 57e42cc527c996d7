// The client in a page (issue 24): with `storage` in IndexedDB, its verdicts and alerts survive a reload, and with
// `browser.fallbackMode: 'offline'` a feed that cannot be reached after the reload answers the stored verdict.
import { describe, expect, it } from 'vitest';
import type { Feed } from '../feeds/feed.js';
import { answer, failure } from '../feeds/feed-response.js';
import { silentLogger } from '../logging/logger.js';
import { ThreatClient } from './threat-client.js';

const IP = '198.51.100.201';

/** A feed of the page's own that answers malicious while `up`, and fails as an unreachable feed does otherwise. */
function pageFeed(up: boolean): Feed {
  return {
    specificationVersion: 'v1',
    id: 'feed_page',
    name: 'Page feed',
    supportedTypes: ['ipv4'],
    requiresKey: false,
    defaultEndpoint: 'https://feed.example',
    async lookup() {
      return up
        ? answer({ status: 'ok', verdict: 'malicious', score: 0.95, evidence: ['seen in attacks'] })
        : failure('error', 'feed_page could not be reached', { network: true });
    },
  };
}

/** An hour and a minute: past `caching.ttl` (an hour), well within `browser.offlineRetention` (30 days). */
const LATER = 61 * 60_000;

function pageClient(dbName: string, up: boolean, now: () => number): ThreatClient {
  const client = new ThreatClient(
    {
      // A feed that answers nothing useful, on the page's own origin (the browser project refuses any other): the
      // page's own feed below is the one the test watches.
      sources: ['feed_urls'],
      apiKeys: { feed_urls: { endpoint: `${location.origin}/no-feed-here/v1` } },
      security: { enforceHttps: false },
      strategy: 'aggressive',
      warninglists: { builtin: false },
      browser: { fallbackMode: 'offline' },
      storage: { type: 'indexeddb', dbName, version: 1, encryptionKey: 'a page passphrase' },
    },
    { env: false, logger: silentLogger, now },
  );
  client.registerFeed(pageFeed(up));
  return client;
}

describe('the client in a page, with IndexedDB storage', () => {
  it('keeps verdicts and alerts across a reload, and offline answers the stored verdict', async () => {
    const dbName = `threatlib-client-${crypto.randomUUID()}`;
    const start = Date.now();
    const first = pageClient(dbName, true, () => start);
    const live = await first.correlate(IP);
    expect(live.isThreat).toBe(true);
    await first.alerts.settled();
    await first.stop();

    // Reloaded after the cached answer expired: the feed is asked, cannot be reached, and the stored verdict answers.
    const reloaded = pageClient(dbName, false, () => Date.now() + LATER);
    const answer = await reloaded.scout(IP);
    const alerts = await reloaded.alerts.list();
    await reloaded.stop();
    const page = answer.results.find((r) => r.feed === 'feed_page');
    expect(page).toMatchObject({ status: 'ok', verdict: 'malicious', source: 'stored' });
    expect(answer.fallback).toEqual({ mode: 'offline', feeds: ['feed_page'] });
    expect(alerts.items).toHaveLength(1);
  });
});
