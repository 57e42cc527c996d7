// Every lookup is bounded by default: a feed that asks for hours (AbuseIPDB's 429 sends Retry-After: 29241, CrowdSec's
// 3600) answers `rate_limited` with the time it reopens instead of holding the call, a feed that never answers is cut
// at the lookup's time limit, and a caller's AbortSignal ends the call at once. The tests that met today's unbounded
// waits carry a vitest timeout, so the old code fails them instead of hanging the suite.
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Feed, FeedLookupContext, FeedLookupResult } from '../feeds/feed.js';
import { answer, failure } from '../feeds/feed-response.js';
import type { FeedResult } from '../feeds/feed-result.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';

const START = Date.parse('2026-11-01T00:00:00Z');
const IP = '198.51.100.77';
/** Long enough for a real lookup on a loaded machine; far shorter than any pause the feeds ask for. */
const BOUNDED = 15_000;

let emulator: FeedEmulator;
const clients: ThreatClient[] = [];

beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterAll(async () => {
  await emulator.close();
});
afterEach(async () => {
  emulator.reset();
  // stop() clears the scheduler's timers: a lookup the old code left waiting for an 8-hour pause keeps nothing alive.
  await Promise.allSettled(clients.splice(0).map((client) => client.stop()));
});

function track(client: ThreatClient): ThreatClient {
  clients.push(client);
  return client;
}

/** A client asking AbuseIPDB and CrowdSec on the emulator, with the default performance options. */
function emulatedClient(extra: Partial<ThreatConfig> = {}) {
  const entry = (feed: 'feed_abuse' | 'feed_cti') => ({ key: `key-${feed}`, endpoint: emulator.endpoints[feed] });
  return track(
    new ThreatClient(
      {
        sources: ['feed_abuse', 'feed_cti'],
        apiKeys: { feed_abuse: entry('feed_abuse'), feed_cti: entry('feed_cti') },
        security: { enforceHttps: false },
        caching: { enabled: false },
        ...extra,
      },
      { env: false, logger: silentLogger },
    ),
  );
}

/** A registered feed whose `lookup` is the test's; it records the signal each request was given. */
function registeredFeed(lookup: (ctx: FeedLookupContext, call: number) => Promise<FeedLookupResult>) {
  const signals: AbortSignal[] = [];
  const feed: Feed = {
    specificationVersion: 'v1',
    id: 'feed_test',
    name: 'Test feed',
    supportedTypes: ['ipv4', 'domain'],
    requiresKey: false,
    defaultEndpoint: 'https://feed.example.com',
    lookup(_indicator, ctx) {
      signals.push(ctx.signal);
      return lookup(ctx, signals.length);
    },
  };
  return { feed, signals };
}

function clientWith(feed: Feed, clock: ManualClock, config: Partial<ThreatConfig> = {}) {
  const client = track(
    new ThreatClient(
      {
        // The schema wants a source; feed_otx without a key answers not_configured without a request.
        sources: ['feed_otx'],
        warninglists: { builtin: false },
        caching: { enabled: false },
        ...config,
      } as ThreatConfig,
      { env: false, logger: silentLogger, clock },
    ),
  );
  client.registerFeed(feed);
  return client;
}

/** Never settles by itself; settles only if the feed honours its signal. */
const hang = (ctx: FeedLookupContext) =>
  new Promise<FeedLookupResult>((_resolve, reject) =>
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }),
  );
/** A third-party feed that ignores its signal and never answers. */
const deaf = () => new Promise<FeedLookupResult>(() => {});
const ok = () => answer({ status: 'ok', verdict: 'malicious', score: 0.9, evidence: ['bad'] });
const testResult = (results: readonly FeedResult[]) => results.find((r) => r.feed === 'feed_test');

describe('a feed that asks for hours (the issue: correlate waited the whole Retry-After)', () => {
  it('correlate answers at once with both feeds rate_limited and the time each reopens, never clean', {
    timeout: BOUNDED,
  }, async () => {
    emulator.script(IP, 'rate_limited');
    const client = emulatedClient();
    const limited = vi.fn();
    client.on('rateLimited', limited);
    const before = Date.now();
    const correlation = await client.correlate(IP);
    const after = Date.now();

    const abuse = correlation.results.find((r) => r.feed === 'feed_abuse');
    const cti = correlation.results.find((r) => r.feed === 'feed_cti');
    expect(abuse).toMatchObject({ status: 'rate_limited', verdict: 'unknown' });
    expect(cti).toMatchObject({ status: 'rate_limited', verdict: 'unknown' });
    // AbuseIPDB sent Retry-After: 29241 (s), CrowdSec 3600: each result says when the feed takes requests again.
    const reopens = (at: string | undefined) => Date.parse(at ?? '');
    expect(reopens(abuse?.error?.retryAt)).toBeGreaterThanOrEqual(before + 29_241_000);
    expect(reopens(abuse?.error?.retryAt)).toBeLessThanOrEqual(after + 29_241_000);
    expect(reopens(cti?.error?.retryAt)).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(reopens(cti?.error?.retryAt)).toBeLessThanOrEqual(after + 3_600_000);
    // A lookup no feed answered concludes nothing.
    expect(correlation.verdict).toBe('unknown');
    expect(correlation.isThreat).toBe(false);
    expect(correlation.sourcesAnswered).toBe(0);
    // One request each: the retry would have to wait past the lookup's time limit, so it is not queued.
    expect(emulator.count('feed_abuse', IP)).toBe(1);
    expect(emulator.count('feed_cti', IP)).toBe(1);
    expect(limited.mock.calls.map(([feed]) => feed).sort()).toEqual(['feed_abuse', 'feed_cti']);
    // The pause stays for later lookups, which answer rate_limited without a request.
    expect(client.feedStatus().find((s) => s.feed === 'feed_abuse')?.pausedUntil).toBe(abuse?.error?.retryAt);
    const again = await client.scout('198.51.100.78');
    expect(again.results.map((r) => r.status)).toEqual(['rate_limited', 'rate_limited']);
    expect(again.results[0]?.error?.retryAt).toBe(abuse?.error?.retryAt);
    expect(emulator.count('feed_abuse')).toBe(1);
  });

  it('scout and scoutMany are bounded the same way', { timeout: BOUNDED }, async () => {
    emulator.script(IP, { behaviour: 'rate_limited', feeds: ['feed_abuse'] });
    const client = emulatedClient();
    const scout = await client.scout(IP);
    expect(scout.results.map((r) => [r.feed, r.status])).toEqual([
      ['feed_abuse', 'rate_limited'],
      ['feed_cti', 'not_found'],
    ]);
    const items = [];
    for await (const item of client.scoutMany([IP, '198.51.100.79'])) items.push(item);
    expect(items.map((i) => i.ok && i.result.results[0]?.status)).toEqual(['rate_limited', 'rate_limited']);
  });
});

describe('the default time limit', () => {
  it('is derived from requestTimeout: attempts × requestTimeout + every backoff delay', () => {
    const limit = (performance: ThreatConfig['performance']) =>
      track(
        new ThreatClient(
          { sources: ['feed_urls'], ...(performance ? { performance } : {}) },
          {
            env: false,
            logger: silentLogger,
          },
        ),
      ).config.performance.lookupTimeout;
    // 4 attempts of 30 s, then 1 + 2 + 4 s of backoff.
    expect(limit(undefined)).toBe(127_000);
    expect(limit({ requestTimeout: 5000, retryAttempts: 1, retryDelay: 500 })).toBe(10_500);
    expect(limit({ retryAttempts: 0 })).toBe(30_000);
    // Capped at 10 minutes...
    expect(limit({ retryAttempts: 10, requestTimeout: 60_000 })).toBe(600_000);
    // ...but never below one attempt.
    expect(limit({ retryAttempts: 2, requestTimeout: 900_000 })).toBe(900_000);
    // Given, it is kept.
    expect(limit({ lookupTimeout: 2500 })).toBe(2500);
  });

  it('cuts a feed that never answers (and ignores its signal) at the limit, as timeout', {
    timeout: BOUNDED,
  }, async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(deaf);
    const client = clientWith(feed, clock, { performance: { requestTimeout: 600_000 } });
    const limit = client.config.performance.lookupTimeout;
    const errors = vi.fn();
    client.on('feedError', errors);
    let settled = false;
    const pending = client.correlate(IP).finally(() => {
      settled = true;
    });
    await clock.advance(limit - 1);
    expect(settled).toBe(false);
    await clock.advance(1);
    const result = testResult((await pending).results);
    expect(result).toMatchObject({ status: 'timeout', verdict: 'unknown' });
    expect(result?.evidence[0]).toBe(
      `feed_test did not answer within the lookup's time limit of ${limit} ms (performance.lookupTimeout)`,
    );
    // Nothing goes on for the call: its request was told to stop, and feedError reported the outcome once.
    expect(signals[0]?.aborted).toBe(true);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(clock.pending).toBe(0);
  });

  it('timeoutMs shortens it for one call', { timeout: BOUNDED }, async () => {
    const clock = new ManualClock(START);
    const { feed } = registeredFeed(hang);
    const client = clientWith(feed, clock);
    const pending = client.scout(IP, { timeoutMs: 50 });
    await clock.advance(50);
    expect(testResult((await pending).results)?.status).toBe('timeout');
  });

  it('stops retrying when the next attempt would start after the limit, keeping the last failure', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(async () => failure('error', 'HTTP 503', { statusCode: 503 }));
    const client = clientWith(feed, clock, {
      performance: { lookupTimeout: 1500, retryAttempts: 5, retryDelay: 1000, backoffMultiplier: 2 },
    });
    const pending = client.scout(IP);
    await clock.advance(1500);
    const result = testResult((await pending).results);
    expect(result).toMatchObject({ status: 'error', verdict: 'unknown' });
    expect(result?.evidence[0]).toMatch(
      /^HTTP 503; not retried: the next attempt would start after the lookup's time limit of 1500 ms/,
    );
    // The first attempt at 0, the second after 500..1000 ms; the third would wait 1000..2000 ms more.
    expect(signals).toHaveLength(2);
    expect(clock.pending).toBe(0);
  });

  it('a lookup that waits for one of the request slots past the limit answers timeout, not rate_limited', async () => {
    const clock = new ManualClock(START);
    const { feed } = registeredFeed((ctx, call) => (call === 1 ? hang(ctx) : Promise.resolve(ok())));
    const client = clientWith(feed, clock, { performance: { maxConcurrency: 1, lookupTimeout: 60_000 } });
    const holder = new AbortController();
    const first = client.scout('198.51.100.1', { signal: holder.signal });
    first.catch(() => {});
    await clock.advance(0);
    const second = client.scout('198.51.100.2', { timeoutMs: 1000 });
    await clock.advance(1000);
    const waited = testResult((await second).results);
    expect(waited).toMatchObject({ status: 'timeout', verdict: 'unknown' });
    expect(waited?.evidence[0]).toMatch(/request slots \(performance\.maxConcurrency\)/);
    holder.abort(new Error('done'));
    await expect(first).rejects.toThrow('done');
  });

  it('keeps the documented wait for a quota that reopens within the limit', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(async () => ok());
    const client = clientWith(feed, clock, {
      performance: { rateLimit: { perFeed: { feed_test: { requestsPerMinute: 1 } } } },
    });
    await client.scout('198.51.100.1');
    const second = client.scout('198.51.100.2');
    await clock.advance(61_000);
    expect(testResult((await second).results)?.status).toBe('ok');
    expect(signals).toHaveLength(2);
  });

  it('answers rate_limited with the reopening time when the quota reopens only after the limit', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(async () => ok());
    const client = clientWith(feed, clock, {
      performance: { rateLimit: { perFeed: { feed_test: { requestsPerDay: 1 } } } },
    });
    await client.scout('198.51.100.1');
    const second = testResult((await client.scout('198.51.100.2')).results);
    expect(second).toMatchObject({ status: 'rate_limited', verdict: 'unknown' });
    expect(Date.parse(second?.error?.retryAt ?? '')).toBeGreaterThan(START + 86_400_000);
    expect(signals).toHaveLength(1);
  });
});

describe('Retry-After within the limit (INTERFACE 7.4: rateLimited fires, requests are retried)', () => {
  it('waits for the pause, retries, and answers', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(async (_ctx, call) =>
      call === 1 ? failure('rate_limited', 'slow down', { statusCode: 429, retryAfterMs: 20_000 }) : ok(),
    );
    const client = clientWith(feed, clock);
    const limited = vi.fn();
    client.on('rateLimited', limited);
    const pending = client.scout(IP);
    await clock.advance(20_000);
    expect(testResult((await pending).results)?.status).toBe('ok');
    expect(signals).toHaveLength(2);
    expect(limited).toHaveBeenCalledTimes(1);
  });

  it('a 429 past the limit fires rateLimited once and is not retried within the call', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(async () =>
      failure('rate_limited', 'slow down', { statusCode: 429, retryAfterMs: 3_600_000 }),
    );
    const client = clientWith(feed, clock);
    const limited = vi.fn();
    client.on('rateLimited', limited);
    const result = testResult((await client.scout(IP)).results);
    expect(result).toMatchObject({
      status: 'rate_limited',
      evidence: ['slow down'],
      error: { statusCode: 429, retryAfterMs: 3_600_000, retryAt: new Date(START + 3_600_000).toISOString() },
    });
    expect(signals).toHaveLength(1);
    expect(limited).toHaveBeenCalledTimes(1);
  });
});

describe('AbortSignal', () => {
  it('rejects with the signal reason at once, stops the request and leaves no timer', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(hang);
    const client = clientWith(feed, clock);
    const controller = new AbortController();
    const pending = client.correlate(IP, { signal: controller.signal });
    await clock.advance(0);
    expect(signals).toHaveLength(1);
    const reason = new Error('the user went away');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(signals[0]?.aborted).toBe(true);
    expect(clock.pending).toBe(0);
    expect(client.feedStatus().find((s) => s.feed === 'feed_test')).toMatchObject({ queued: 0, inFlight: 0 });
  });

  it('rejects even when the feed ignores its signal', async () => {
    const clock = new ManualClock(START);
    const { feed } = registeredFeed(deaf);
    const client = clientWith(feed, clock);
    const controller = new AbortController();
    const pending = client.scout(IP, { signal: controller.signal });
    await clock.advance(0);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(client.feedStatus().find((s) => s.feed === 'feed_test')?.inFlight).toBe(0);
  });

  it('takes a request out of its queue while it waits for quota', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(async () => ok());
    const client = clientWith(feed, clock, {
      performance: { rateLimit: { perFeed: { feed_test: { requestsPerMinute: 1 } } } },
    });
    await client.scout('198.51.100.1');
    const controller = new AbortController();
    const pending = client.scout('198.51.100.2', { signal: controller.signal });
    await clock.advance(0);
    expect(client.feedStatus().find((s) => s.feed === 'feed_test')?.queued).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(client.feedStatus().find((s) => s.feed === 'feed_test')?.queued).toBe(0);
    await clock.advance(120_000);
    expect(signals).toHaveLength(1);
  });

  it('refuses a signal already aborted without asking any feed', async () => {
    const clock = new ManualClock(START);
    const { feed, signals } = registeredFeed(async () => ok());
    const client = clientWith(feed, clock);
    const reason = new Error('too late');
    await expect(client.scout(IP, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(signals).toHaveLength(0);
  });

  it("one caller's abort does not cut the request another caller shares", async () => {
    const clock = new ManualClock(START);
    let release!: (result: FeedLookupResult) => void;
    const { feed, signals } = registeredFeed(
      () =>
        new Promise<FeedLookupResult>((resolve) => {
          release = resolve;
        }),
    );
    const client = clientWith(feed, clock);
    const controller = new AbortController();
    const first = client.scout(IP, { signal: controller.signal });
    const second = client.scout(IP);
    await clock.advance(0);
    expect(signals).toHaveLength(1);
    controller.abort();
    await expect(first).rejects.toMatchObject({ name: 'AbortError' });
    expect(signals[0]?.aborted).toBe(false);
    release(ok());
    expect(testResult((await second).results)?.status).toBe('ok');
  });

  it('ends scoutMany with the reason, also while it waits for the next input', async () => {
    const clock = new ManualClock(START);
    const { feed } = registeredFeed(async () => ok());
    const client = clientWith(feed, clock);
    const controller = new AbortController();
    async function* inputs() {
      yield '198.51.100.1';
      await new Promise(() => {}); // a source that never gives the next line
    }
    const seen: string[] = [];
    const run = (async () => {
      for await (const item of client.scoutMany(inputs(), { signal: controller.signal, window: 1 }))
        seen.push(item.input);
    })();
    await clock.advance(0);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(seen).toEqual(['198.51.100.1']);
  });
});
