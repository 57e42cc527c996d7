import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { silentLogger } from '../logging/logger.js';

const shared = (path: string) => new URL(`../../../../../shared/data/${path}`, import.meta.url).pathname;
const IPSUM = shared('ipsum-level3.txt');
const PUBLIC_DNS = shared('warninglists/public-dns-v4.json');

let emulator: FeedEmulator;

beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(() => emulator.reset());

/** A client asking all five feeds, on the emulator. */
function allFeeds(extra: Record<string, unknown> = {}) {
  const key = (feed: keyof FeedEmulator['endpoints']) => ({
    key: `key-${feed}`,
    endpoint: emulator.endpoints[feed],
    timeout: 2000,
  });
  return new ThreatClient(
    {
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      apiKeys: {
        feed_urls: key('feed_urls'),
        feed_otx: key('feed_otx'),
        feed_abuse: key('feed_abuse'),
        feed_cti: key('feed_cti'),
        feed_scan: key('feed_scan'),
      },
      security: { enforceHttps: false },
      ...extra,
    },
    { env: false, logger: silentLogger },
  );
}

describe('benign prefilter', () => {
  it('answers 8.8.8.8 from the public-dns warninglist with zero feed requests', async () => {
    const client = allFeeds({ warninglists: { builtin: true, files: [PUBLIC_DNS] } });
    const result = await client.correlate('8.8.8.8');
    expect(emulator.count()).toBe(0);
    expect(result.verdict).toBe('clean');
    expect(result.isThreat).toBe(false);
    expect(result.warninglist?.list).toBe('List of known IPv4 public DNS resolvers');
    expect(result.results).toHaveLength(1);
    expect(result.results[0]?.evidence[0]).toMatch(
      /^on warninglist "List of known IPv4 public DNS resolvers" \(8\.8\.8\.8/,
    );
  });

  it('answers 10.1.2.3 from the built-in list with zero feed requests', async () => {
    const client = allFeeds();
    const scout = await client.scout('10.1.2.3');
    expect(emulator.count()).toBe(0);
    expect(scout.warninglist?.entry).toBe('10.0.0.0/8');
    expect(scout.results[0]).toMatchObject({ verdict: 'clean', status: 'ok' });
    expect(scout.results[0]?.evidence[0]).toMatch(/RFC 1918/);
  });

  it('asks every feed about an address on no list (the control)', async () => {
    const client = allFeeds({ warninglists: { builtin: true, files: [PUBLIC_DNS] } });
    await client.scout('198.51.100.14');
    expect(emulator.count()).toBe(5);
    for (const feed of ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'] as const) {
      expect(emulator.count(feed, '198.51.100.14')).toBe(1);
    }
  });
});

describe('correlation on the emulator', () => {
  it('an indicator flagged by 3 of 5 feeds correlates with consensus 3 and a contribution per feed', async () => {
    emulator.script('198.51.100.66', { behaviour: 'malicious', feeds: ['feed_abuse', 'feed_cti'] });
    // VirusTotal's analysis is two years old (the others are fresh): recency discounts only that answer.
    emulator.script('198.51.100.66', { behaviour: 'malicious', feeds: ['feed_scan'], ageDays: 730 });
    emulator.script('198.51.100.66', { behaviour: 'not_found', feeds: ['feed_urls', 'feed_otx'] });
    const client = allFeeds({ strategy: 'balanced' });
    const threats = vi.fn();
    client.on('threatFound', threats);
    const result = await client.correlate('198.51.100.66');
    expect(result.consensus).toBe(3);
    expect(result.sourcesQueried).toBe(5);
    expect(result.sourcesAnswered).toBe(5);
    expect(result.contributions.map((c) => c.feed)).toEqual([
      'feed_urls',
      'feed_otx',
      'feed_abuse',
      'feed_cti',
      'feed_scan',
    ]);
    expect(
      result.contributions
        .filter((c) => c.counted)
        .map((c) => c.feed)
        .sort(),
    ).toEqual(['feed_abuse', 'feed_cti', 'feed_scan']);
    expect(result.contributions.find((c) => c.feed === 'feed_scan')?.recency).toBe(0.25);
    expect(result.contributions.find((c) => c.feed === 'feed_abuse')?.recency).toBe(1);
    expect(result.isThreat).toBe(true);
    expect(result.verdict).toBe('malicious');
    expect(threats).toHaveBeenCalledTimes(1);
    expect(threats.mock.calls[0]?.[0]).toMatchObject({ indicator: '198.51.100.66', severity: result.riskScore });
  });

  it('a failed feed is reported, never counted as clean', async () => {
    emulator.script('198.51.100.67', { behaviour: 'server_error', feeds: ['feed_scan'] });
    emulator.script('198.51.100.67', { behaviour: 'unauthorized', feeds: ['feed_abuse'] });
    emulator.script('198.51.100.67', 'not_found');
    const result = await allFeeds({ performance: { retryAttempts: 0 } }).correlate('198.51.100.67');
    expect(result.verdict).toBe('unknown');
    expect(result.failures.map((f) => [f.feed, f.status]).sort()).toEqual([
      ['feed_abuse', 'auth_error'],
      ['feed_scan', 'error'],
    ]);
  });
});

describe('local lists', () => {
  it('an IP from ipsum-level3.txt, loaded as a local list, is malicious by list:ipsum with no network', async () => {
    const client = new ThreatClient(
      { sources: [], lists: [{ name: 'ipsum', file: IPSUM, format: 'plain', verdict: 'malicious' }] },
      { env: false, logger: silentLogger },
    );
    const listed = (await import('node:fs'))
      .readFileSync(IPSUM, 'utf8')
      .split('\n')
      .find((line) => /^\d/.test(line)) as string;
    const result = await client.correlate(listed.trim());
    expect(result.results).toHaveLength(1);
    expect(result.results[0]).toMatchObject({ feed: 'list:ipsum', status: 'ok', verdict: 'malicious', score: 1 });
    expect(result.results[0]?.evidence[0]).toMatch(/^listed in local list "ipsum" \(line \d+\)$/);
    expect(result.consensus).toBe(1);
    expect(result.contributions[0]).toMatchObject({ feed: 'list:ipsum', counted: true, weight: 0.7 });
    expect(emulator.count()).toBe(0);
    const other = await client.scout('198.51.100.200');
    expect(other.results[0]).toMatchObject({ feed: 'list:ipsum', status: 'not_found', verdict: 'unknown' });
  });

  it('a bad list file makes start() fail naming the file', async () => {
    const client = new ThreatClient(
      { sources: [], lists: [{ name: 'missing', file: '/nonexistent/list.txt' }] },
      { env: false, logger: silentLogger },
    );
    await expect(client.start()).rejects.toThrow(/\/nonexistent\/list\.txt/);
  });
});

describe('scoutMany at scale', () => {
  it('keeps memory bounded over 100,000 inputs', async () => {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    const client = new ThreatClient(
      { sources: [], lists: [{ name: 'ipsum', file: IPSUM }], performance: { maxConcurrency: 10 } },
      { env: false, logger: silentLogger },
    );
    await client.start();
    const listed = (await import('node:fs'))
      .readFileSync(IPSUM, 'utf8')
      .split('\n')
      .filter((line) => /^\d/.test(line));
    function* inputs() {
      // One in ten is on the list; the rest are documentation addresses on no list.
      for (let i = 0; i < 100_000; i++) {
        yield i % 10 === 0 ? (listed[i % listed.length] as string).trim() : `203.0.113.${i & 255}`;
      }
    }
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let count = 0;
    let malicious = 0;
    for await (const item of client.scoutMany(inputs())) {
      count += 1;
      if (item.ok && item.result.results[0]?.verdict === 'malicious') malicious += 1;
      if (count % 10_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    await client.stop();
    expect(count).toBe(100_000);
    expect(malicious).toBeGreaterThan(0);
    // Holding every result would retain well over 100 MB; the stream holds a window of 20.
    expect(peak).toBeLessThan(24 * 1024 * 1024);
  }, 60_000);
});
