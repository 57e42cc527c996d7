import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { cacheComplianceSuite } from './cache.test-suite.js';
import { FileCache } from './file-cache.js';
import { KvServerCache } from './kvserver-cache.js';
import { MemoryCache } from './memory-cache.js';
import { describeWithRedis, E2E_REDIS, uniquePrefix } from './redis-e2e.test-suite.js';

/** A clock that starts at a realistic time and moves only when a test says so. */
function fakeClock() {
  let now = Date.parse('2025-06-01T12:00:00Z');
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('cache compliance: memory', () =>
  cacheComplianceSuite('memory', async () => {
    const clock = fakeClock();
    return { cache: new MemoryCache({ now: clock.now }), advance: clock.advance };
  }));

describe('cache compliance: file', () => {
  const directories: string[] = [];
  afterAll(async () => {
    await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
  });
  cacheComplianceSuite('file', async (options) => {
    const directory = await mkdtemp(join(tmpdir(), 'threatlib-file-cache-'));
    directories.push(directory);
    const clock = fakeClock();
    const cache = new FileCache({ directory, compression: options?.compression, now: clock.now });
    return { cache, advance: clock.advance };
  });
});

describeWithRedis(`cache compliance: kvserver (Redis at ${E2E_REDIS.host}:${E2E_REDIS.port})`, () =>
  cacheComplianceSuite('kvserver', async (options) => {
    // Redis's own PX expiry runs on real time; every TTL in the suite is far longer than a test, so only the
    // injected clock decides expiry here. Real expiry is checked with PTTL in kvserver-cache.test.ts.
    const clock = fakeClock();
    const cache = new KvServerCache({
      ...E2E_REDIS,
      keyPrefix: uniquePrefix('compliance'),
      compression: options?.compression,
      now: clock.now,
    });
    return { cache, advance: clock.advance };
  }),
);
