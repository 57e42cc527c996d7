// The examples of ../shared/INTERFACE.md that are not Node-only (no server, queue, SIEM, file, socket or environment
// variable), run in a page (issue 24's acceptance): the client as its sections 1, 4.2, 5, 6.1, 7 and 8.1 document it,
// written as a user porting from that document writes it, with `ThreatClient` from core's main entry. The feeds are
// the feed emulator's, reached as a page reaches feeds: through `browser.corsProxy`, a route of the test server that
// forwards to the emulator (feed-proxy.test-suite.ts); the origin guard fails any test whose page asks another origin.
// e2e/tests/interface/ runs the same sections under Node.js, and the Node-only ones.
/// <reference path="../../../../e2e/browser/browser-commands.d.ts" />
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import { ConfigurationError, ThreatClient, type ThreatConfig } from '../index.js';

declare module 'vitest/browser' {
  interface BrowserCommands {
    /** The emulator's endpoint of each feed, and the proxy route's path on this page's origin. */
    feeds(): Promise<{ endpoints: Record<string, string>; proxyPath: string }>;
    /** Makes `indicator` behave as told (`FeedEmulator.script`). */
    scriptFeeds(
      indicator: string,
      script: string | { behaviour: string; feeds?: string[]; ageDays?: number },
    ): Promise<void>;
    /** The requests the emulator received about `indicator`, with the key each carried. */
    feedRequests(indicator: string): Promise<Array<{ feed: string; key: string | null }>>;
  }
}

const FEEDS = ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'] as const;
type FeedId = (typeof FEEDS)[number];

let apiKeys: Record<FeedId, { key: string; endpoint: string }>;
let corsProxy: string;
const clients: ThreatClient[] = [];
/** Every client an example makes is stopped after it, whatever the example did. */
const track = (client: ThreatClient) => {
  clients.push(client);
  return client;
};
/** A name no other run uses (IndexedDB outlives a test file in the same browser profile). */
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  const { endpoints, proxyPath } = await commands.feeds();
  apiKeys = Object.fromEntries(
    FEEDS.map((feed) => [feed, { key: `${feed}-page-key`, endpoint: endpoints[feed] as string }]),
  ) as typeof apiKeys;
  corsProxy = `${location.origin}${proxyPath}`;
  await commands.scriptFeeds('198.51.100.23', { behaviour: 'malicious', ageDays: 730 });
  await commands.scriptFeeds('198.51.100.24', { behaviour: 'malicious', feeds: ['feed_abuse', 'feed_cti'] });
  await commands.scriptFeeds('malicious-site.com', 'malicious');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
});

/** What every example below shares: the emulator's feeds through the page's proxy, plain HTTP on loopback. */
function inPage(config: Partial<ThreatConfig> = {}): ThreatConfig {
  return {
    sources: [...FEEDS],
    apiKeys,
    security: { enforceHttps: false },
    logging: { enabled: false },
    ...config,
    browser: { corsProxy, ...config.browser },
  } as ThreatConfig;
}

describe('1. core operations in a page: scout(indicator) and correlate(indicator)', () => {
  it('scouts an indicator with every source through corsProxy and correlates it into a numeric confidence', async () => {
    const trojan = track(new ThreatClient(inPage()));

    const threats = await trojan.scout('malicious-site.com');
    expect(threats.results.map((result) => result.feed)).toEqual([...FEEDS]);
    expect(threats.results.find((result) => result.feed === 'feed_otx')).toMatchObject({
      status: 'ok',
      verdict: 'malicious',
    });

    const correlation = await trojan.correlate('198.51.100.23');
    expect(correlation.confidence).toBeGreaterThan(0);
    expect(correlation.confidence).toBeLessThanOrEqual(100);
    const clean = await trojan.correlate('8.8.8.8');
    expect(clean.confidence).toBeLessThan(correlation.confidence);
  });
});

describe('8.1 strategy and thresholds in a page', () => {
  it('defaults to defensive; custom thresholds override it: confidence, consensus, riskScore', async () => {
    expect(track(new ThreatClient(inPage({ sources: ['feed_urls'] }))).config.strategy).toBe('defensive');
    const defensive = track(new ThreatClient(inPage({ strategy: 'defensive' })));
    const custom = track(
      new ThreatClient(
        inPage({
          strategy: 'custom',
          thresholds: { confidence: 0.2, consensus: 3, riskScore: 5, correlationWeight: 1 },
        }),
      ),
    );
    // The evidence is old, so its confidence stays low: too low for defensive, enough for these thresholds.
    expect((await defensive.correlate('198.51.100.23')).isThreat).toBe(false);
    expect(await custom.correlate('198.51.100.23')).toMatchObject({ isThreat: true, strategy: 'custom' });
    const two = await custom.correlate('198.51.100.24');
    expect(two.consensus).toBe(2);
    expect(two.isThreat).toBe(false);
  });
});

describe('5 and 8.1 apiKeys in a page', () => {
  it('sends each feed its key, given as a string or as {key, endpoint, rateLimit, timeout} (categories for feed_abuse)', async () => {
    const trojan = track(
      new ThreatClient(
        inPage({
          sources: ['feed_otx', 'feed_abuse'],
          apiKeys: {
            feed_otx: { key: 'otx-object-key', endpoint: apiKeys.feed_otx.endpoint, rateLimit: 30, timeout: 5000 },
            feed_abuse: { key: 'abuse-object-key', endpoint: apiKeys.feed_abuse.endpoint, categories: [14, 18] },
          },
        }),
      ),
    );
    const indicator = '198.51.100.31';
    const threats = await trojan.scout(indicator);
    expect(threats.results.map(({ feed, status }) => ({ feed, status }))).toEqual([
      { feed: 'feed_otx', status: 'not_found' },
      { feed: 'feed_abuse', status: 'not_found' },
    ]);
    expect((await commands.feedRequests(indicator)).sort((a, b) => a.feed.localeCompare(b.feed))).toEqual([
      { feed: 'feed_abuse', key: 'abuse-object-key' },
      { feed: 'feed_otx', key: 'otx-object-key' },
    ]);
    const otx = trojan.feedStatus().find((status) => status.feed === 'feed_otx');
    expect(otx?.quota).toContainEqual(expect.objectContaining({ window: 'minute', limit: 30 }));

    const asString = track(
      new ThreatClient({
        sources: ['feed_urls', 'feed_otx'],
        apiKeys: { feed_otx: 'otx-api-key' },
        logging: { enabled: false },
      }),
    );
    expect(asString.warnings.map((warning) => warning.code)).not.toContain('MISSING_API_KEY');
  });
});

describe('8.1 browser: corsProxy, fallbackMode, secureContext', () => {
  it('fallbackMode error (the default): a feed that cannot answer is reported so, never clean', async () => {
    const indicator = '198.51.100.41';
    await commands.scriptFeeds(indicator, 'server_error');
    const trojan = track(new ThreatClient(inPage({ sources: ['feed_abuse'], performance: { retryAttempts: 0 } })));
    expect(trojan.config.browser.fallbackMode).toBe('error');
    const threats = await trojan.scout(indicator);
    expect(threats.results).toEqual([expect.objectContaining({ feed: 'feed_abuse', status: 'error' })]);
    expect(threats.results[0]?.verdict).not.toBe('clean');
    expect((await trojan.correlate(indicator)).verdict).not.toBe('clean');
  });

  it('fallbackMode demo: a feed with no key answers from the demo data, marked demo', async () => {
    const trojan = track(
      new ThreatClient({
        sources: ['feed_otx'],
        browser: { fallbackMode: 'demo' },
        logging: { enabled: false },
      }),
    );
    const threats = await trojan.scout('198.51.100.23');
    expect(threats.results).toEqual([
      expect.objectContaining({ feed: 'feed_otx', verdict: 'malicious', source: 'demo' }),
    ]);
    expect(threats.fallback).toMatchObject({ mode: 'demo', feeds: ['feed_otx'] });
  });

  it('fallbackMode offline with storage {type, dbName, version, encryptionKey}: a new client answers the stored verdict, marked stored', async () => {
    const indicator = '198.51.100.42';
    await commands.scriptFeeds(indicator, { behaviour: 'malicious', feeds: ['feed_abuse'] });
    const storage = {
      type: 'indexeddb',
      dbName: unique('interface'),
      version: 1,
      encryptionKey: 'a page key',
    } as const;
    // A verdict cache of 1 ms, so that the second client asks the feed: offline keeps the verdict 30 days apart.
    const config = inPage({
      sources: ['feed_abuse'],
      browser: { fallbackMode: 'offline' },
      storage,
      caching: { enabled: true, ttl: 1 },
      performance: { retryAttempts: 0 },
    });
    const first = track(new ThreatClient(config));
    expect((await first.scout(indicator)).results[0]).toMatchObject({ status: 'ok', verdict: 'malicious' });
    await first.stop();

    // As after a reload: a new client on the same database, the cached verdict expired, and the feed now failing.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await commands.scriptFeeds(indicator, { behaviour: 'server_error', feeds: ['feed_abuse'] });
    const reloaded = track(new ThreatClient(config));
    const threats = await reloaded.scout(indicator);
    expect(threats.results[0]).toMatchObject({
      feed: 'feed_abuse',
      verdict: 'malicious',
      source: 'stored',
      lookedUpAt: expect.any(String),
    });
    expect(threats.fallback).toMatchObject({ mode: 'offline', feeds: ['feed_abuse'] });
    indexedDB.deleteDatabase(storage.dbName);
  });

  it('secureContext: true (the default) starts in a secure context, as this page is', () => {
    expect(isSecureContext).toBe(true);
    const trojan = track(
      new ThreatClient({ sources: ['feed_urls'], browser: { secureContext: true }, logging: { enabled: false } }),
    );
    expect(trojan.config.browser.secureContext).toBe(true);
  });
});

describe('8 and 8.1 caching, performance and pwa in a page', () => {
  it('memory: answers a repeated lookup from the cache', async () => {
    const trojan = track(
      new ThreatClient(
        inPage({ sources: ['feed_abuse'], caching: { enabled: true, type: 'memory', ttl: 3_600_000, maxSize: 100 } }),
      ),
    );
    const indicator = '198.51.100.51';
    expect((await trojan.scout(indicator)).results[0]?.cached).toBeFalsy();
    expect((await trojan.scout(indicator)).results[0]?.cached).toBe(true);
    expect(await commands.feedRequests(indicator)).toHaveLength(1);
  });

  it('updateConcurrency(n) changes the maximum concurrency at run time, for work already queued', async () => {
    const trojan = track(new ThreatClient(inPage({ sources: ['feed_otx'], performance: { maxConcurrency: 1 } })));
    // Lookups the feed never answers hold their slots until they are aborted: no timing is involved.
    const indicators = ['198.51.100.55', '198.51.100.56', '198.51.100.57', '198.51.100.58'];
    for (const indicator of indicators) await commands.scriptFeeds(indicator, 'hang');
    const otx = () => trojan.feedStatus()[0] ?? { inFlight: 0, queued: 0 };
    const arrived = async () => {
      let count = 0;
      for (const indicator of indicators) if ((await commands.feedRequests(indicator)).length > 0) count += 1;
      return count;
    };
    const abort = new AbortController();
    const scouts = Promise.allSettled(indicators.map((i) => trojan.scout(i, { signal: abort.signal })));
    await expect.poll(() => otx().inFlight + otx().queued === 4 && arrived(), { timeout: 10_000 }).toBe(1);
    expect(otx()).toMatchObject({ inFlight: 1, queued: 3 });

    trojan.updateConcurrency(4);
    await expect.poll(arrived, { timeout: 10_000 }).toBe(4);
    expect(otx()).toMatchObject({ inFlight: 4, queued: 0 });
    abort.abort();
    await scouts;
    expect(() => trojan.updateConcurrency(51)).toThrow(/^Configuration invalid: performance\.maxConcurrency/);
  });

  it('takes pwa: enabled, cacheStrategy, offlineData, syncOnReconnect', () => {
    const pwa = { enabled: true, cacheStrategy: 'network-first', offlineData: true, syncOnReconnect: true } as const;
    const trojan = track(new ThreatClient({ sources: ['feed_urls'], pwa, logging: { enabled: false } }));
    expect(trojan.config.pwa).toEqual(pwa);
  });
});

describe('6.1 events in a page', () => {
  it('calls threatFound, feedError, requestComplete, rateLimited and cacheEvicted', async () => {
    const seen = {
      threatFound: [] as string[],
      feedError: [] as string[],
      requestComplete: [] as string[],
      rateLimited: [] as string[],
      cacheEvicted: 0,
    };
    const trojan = track(
      new ThreatClient(
        inPage({
          strategy: 'custom',
          thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
          performance: { retryAttempts: 0 },
          caching: { enabled: true, type: 'memory', maxSize: 2 },
          events: {
            threatFound: async (threat) => {
              seen.threatFound.push(threat.indicator);
            },
            feedError: (error, feed) => {
              seen.feedError.push(`${feed}: ${error.message}`);
            },
            requestComplete: (_duration, feed) => {
              seen.requestComplete.push(feed);
            },
            rateLimited: (feed) => {
              seen.rateLimited.push(feed);
            },
            cacheEvicted: () => {
              seen.cacheEvicted += 1;
            },
          },
        }),
      ),
    );
    await trojan.correlate('198.51.100.23');
    expect(seen.threatFound).toEqual(['198.51.100.23']);
    expect([...seen.requestComplete].sort()).toEqual([...FEEDS].sort());
    expect(seen.cacheEvicted).toBeGreaterThan(0);

    await commands.scriptFeeds('198.51.100.71', { behaviour: 'unauthorized', feeds: ['feed_abuse'] });
    await trojan.scout('198.51.100.71');
    expect(seen.feedError).toEqual([expect.stringMatching(/^feed_abuse: .*401/)]);

    await commands.scriptFeeds('198.51.100.72', { behaviour: 'rate_limited', feeds: ['feed_scan'] });
    await trojan.scout('198.51.100.72');
    expect(seen.rateLimited).toContain('feed_scan');
  });
});

describe('4.2 createVault in a page, and 6.1 vaultLocked', () => {
  it('resolves to {trojan, vault}; the feeds take their keys from it; it locks itself after lockTimeout', async () => {
    let locked = 0;
    const { trojan, vault } = await ThreatClient.createVault(
      'a page password, not a secret',
      { feed_abuse: 'abuse-key-from-the-vault' },
      {
        autoLock: true,
        lockTimeout: 1500,
        config: {
          sources: ['feed_abuse'],
          apiKeys: { feed_abuse: { key: 'unused', endpoint: apiKeys.feed_abuse.endpoint } } as never,
          browser: { corsProxy },
          security: { enforceHttps: false },
          logging: { enabled: false },
          events: {
            vaultLocked: () => {
              locked += 1;
            },
          },
        },
      },
    );
    track(trojan);
    const indicator = '198.51.100.61';
    expect((await trojan.scout(indicator)).results[0]?.status).toBe('not_found');
    expect(await commands.feedRequests(indicator)).toEqual([{ feed: 'feed_abuse', key: 'abuse-key-from-the-vault' }]);
    await expect.poll(() => vault.isLocked, { timeout: 10_000 }).toBe(true);
    expect(locked).toBe(1);
  }, 60_000);
});

describe('7 errors in a page', () => {
  it('1. an invalid configuration throws "Configuration invalid:" followed by the validation message', () => {
    let error: unknown;
    try {
      new ThreatClient({ sources: ['feed_urls'], performance: { maxConcurrency: 51 }, logging: { enabled: false } });
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Configuration invalid: performance\.maxConcurrency: /);
  });

  it('5. warns, and does not throw, in the five documented cases', () => {
    const warnings = (config: ThreatConfig) =>
      track(new ThreatClient({ ...config, logging: { enabled: false } }))
        .warnings.map((w) => [w.code, w.path])
        .filter(([code]) => code !== 'STRATEGY_CANNOT_CONCLUDE');
    expect(warnings({ sources: ['feed_urls'] })).toEqual([]);
    expect(warnings({ sources: ['feed_urls', 'feed_otx'] })).toEqual([['MISSING_API_KEY', 'apiKeys.feed_otx']]);
    expect(warnings({ sources: ['feed_urls'], performance: { maxConcurrency: 21 } })).toEqual([
      ['HIGH_CONCURRENCY', 'performance.maxConcurrency'],
    ]);
    expect(warnings({ sources: ['feed_urls'], performance: { requestTimeout: 9999 } })).toEqual([
      ['LOW_REQUEST_TIMEOUT', 'performance.requestTimeout'],
    ]);
    expect(warnings({ sources: ['feed_urls'], security: { enforceHttps: false } })).toEqual([
      ['HTTPS_NOT_ENFORCED', 'security.enforceHttps'],
    ]);
    expect(warnings({ sources: ['feed_urls'], security: { autoLock: false } })).toEqual([
      ['AUTO_LOCK_DISABLED', 'security.autoLock'],
    ]);
  });
});
