import type { Behaviour, EmulatedFeed, FeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { IndicatorType } from '../indicators/index.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import type { Feed } from './feed.js';
import type { FeedStatus } from './feed-result.js';

/** An indicator of each type, from documentation ranges and reserved names where there are such. */
const SAMPLE_INDICATORS: Readonly<Record<IndicatorType, string>> = {
  ipv4: '198.51.100.77',
  ipv6: '2001:db8::77',
  domain: 'compliance.example.com',
  url: 'http://compliance.example.com/payload.exe',
  md5: '44d88612fea8a8f36de82e1278abb02f',
  sha1: '3395856ce81f2b7382dee72602f798b642f14140',
  sha256: '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f',
  email: 'phisher@compliance.example.com',
};

/** The feeds' request timeout, in ms on the test's manual clock: it passes only when a test advances the clock. */
const REQUEST_TIMEOUT = 10_000;

/** What a failure behaviour must become: the status every adapter agrees on. */
const FAILURES: ReadonlyArray<[Behaviour, FeedStatus]> = [
  ['unauthorized', 'auth_error'],
  ['forbidden', 'auth_error'],
  ['rate_limited', 'rate_limited'],
  ['server_error', 'error'],
  ['malformed', 'error'],
  ['wrong_shape', 'error'],
  ['hang', 'timeout'],
];

/**
 * The behaviour every feed adapter must show, run against the emulator: each failure maps to its status with
 * verdict `unknown` and score 0; answers are well formed; nothing ever reads `clean` unless the feed said so; the
 * key never appears in a result. Registers its tests under the caller's `describe`.
 */
export function feedComplianceSuite(options: {
  feed: Feed;
  emulated: EmulatedFeed;
  start: () => Promise<FeedEmulator>;
}) {
  const { feed } = options;
  const key = 'compliance-key-0123456789abcdef';
  let emulator: FeedEmulator;
  let client: ThreatClient;
  let clock: ManualClock;

  beforeAll(async () => {
    emulator = await options.start();
  });

  // A fresh client per test: a 429's pause, an open breaker or a cached answer must not leak into the next case.
  // Its clock is manual: a request times out when the test says so, never because the machine is slow (a real
  // 300 ms timeout turned answers into `timeout` under load).
  beforeEach(() => {
    clock = new ManualClock(Date.now());
    client = new ThreatClient(
      {
        sources: [feed.id as never],
        apiKeys: { [feed.id]: { key, endpoint: emulator.endpoints[options.emulated], timeout: REQUEST_TIMEOUT } },
        security: { enforceHttps: false },
        warninglists: { builtin: false },
        caching: { enabled: false },
        performance: { retryAttempts: 0, rateLimit: { enabled: false } },
      },
      { env: false, logger: silentLogger, clock },
    );
  });

  afterEach(async () => {
    await client.stop();
  });

  afterAll(async () => {
    await emulator.close();
  });

  const lookup = async (indicator: string) => {
    const result = (await client.scout(indicator)).results.find((r) => r.feed === feed.id);
    if (!result) throw new Error(`no result from ${feed.id}`);
    expect(JSON.stringify(result)).not.toContain(key);
    return result;
  };

  describe(`${feed.id} honours the feed contract`, () => {
    for (const type of feed.supportedTypes) {
      const indicator = SAMPLE_INDICATORS[type];
      it.each(FAILURES)(`${type}: %s becomes status %s, verdict unknown`, async (behaviour, status) => {
        emulator.script(indicator, behaviour);
        const held = emulator.hanging();
        const looking = lookup(indicator);
        if (behaviour === 'hang') {
          // Once the emulator holds the request, its timeout is due: the request's timer was set before it was sent.
          await vi.waitFor(() => expect(emulator.hanging()).toBe(held + 1), { timeout: 20_000 });
          await clock.advance(REQUEST_TIMEOUT);
        }
        const result = await looking;
        expect(result).toMatchObject({ status, verdict: 'unknown', score: 0 });
        expect(result.evidence.length).toBeGreaterThan(0);
        expect(result.error?.message).toBeTruthy();
      });

      it(`${type}: not_found is never clean`, async () => {
        emulator.script(indicator, 'not_found');
        const result = await lookup(indicator);
        expect(result.status).toBe('not_found');
        expect(result.verdict).toBe('unknown');
      });

      it(`${type}: a malicious answer is well formed`, async () => {
        emulator.script(indicator, 'malicious');
        const result = await lookup(indicator);
        expect(result.status).toBe('ok');
        expect(['malicious', 'suspicious']).toContain(result.verdict);
        expect(result.score).toBeGreaterThan(0);
        expect(result.score).toBeLessThanOrEqual(1);
        expect(result.evidence.length).toBeGreaterThan(0);
        for (const date of [result.firstSeen, result.lastSeen]) {
          if (date !== undefined) expect(new Date(date).toISOString()).toBe(date);
        }
      });
    }

    const unsupported = (Object.keys(SAMPLE_INDICATORS) as IndicatorType[]).find(
      (t) => !feed.supportedTypes.includes(t),
    );
    if (unsupported) {
      it(`${unsupported}: is not sent, and answers unsupported`, async () => {
        const before = emulator.count(options.emulated);
        const result = await lookup(SAMPLE_INDICATORS[unsupported]);
        expect(result.status).toBe('unsupported');
        expect(emulator.count(options.emulated)).toBe(before);
      });
    }
  });
}
