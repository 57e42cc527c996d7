// The checks of every-option.test.ts for `caching`: the memory, file and Redis caches.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { E2E_REDIS, uniquePrefix } from '../../cache/redis-e2e.test-suite.js';
import { ManualClock } from '../../scheduler/clock.js';
import { answer, configWith, IP, until } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, effect } from './check.test-suite.js';
import { dead, filesIn, freshDir, h, IP2, lookupsOver, removeKeys, resp, START } from './world.test-suite.js';

const REDIS_A = uniquePrefix('every-option-db');
const REDIS_B = uniquePrefix('every-option-prefix');
const REDIS_C = uniquePrefix('every-option-other-prefix');

const CACHE_TYPE_DIR = h.path('cache-type');
const CACHE_DIR_A = h.path('cache-a');
const CACHE_DIR_B = h.path('cache-b');

/** Which of `prefixes` hold keys in databases 0 and 5 after a scout through the Redis cache (then removed). */
async function redisKeys(config: ThreatConfig, prefixes: string[]): Promise<Record<string, string[]>> {
  const { client } = h.client(config);
  await client.scout(IP);
  await client.stop();
  return removeKeys(prefixes);
}

/** One check per option of `caching`. */
export const CACHING_CHECKS: Record<string, Check> = {
  'caching.enabled': effect({ caching: { enabled: true } }, async (c) => lookupsOver(c, [IP, IP])),
  'caching.type': effect(
    { caching: { type: 'file' } },
    async (c) => {
      await lookupsOver(c, [IP]);
      return filesIn(CACHE_TYPE_DIR).length > 0;
    },
    { caching: { enabled: true, filesystem: { directory: CACHE_TYPE_DIR } } },
  ),
  'caching.ttl': effect(
    { caching: { ttl: 3 * 3_600_000 } },
    async (c) => lookupsOver(c, [IP, IP], { gapMs: 2 * 3_600_000 }),
    { caching: { enabled: true } },
  ),
  'caching.negativeTtl': effect(
    { caching: { negativeTtl: 3_600_000 } },
    async (c) => lookupsOver(c, [IP, IP], { gapMs: 20 * 60_000, setup: (p) => (p.answer = () => answer('clean', 0)) }),
    { caching: { enabled: true } },
  ),
  'caching.maxSize': effect({ caching: { maxSize: 1 } }, async (c) => lookupsOver(c, [IP, IP2, IP]), {
    caching: { enabled: true },
  }),
  'caching.compression': effect(
    { caching: { compression: true } },
    async (c) => {
      const dir = freshDir(h.path('cache-compression'));
      await lookupsOver(configWith(c, { caching: { filesystem: { directory: dir } } }), [IP]);
      const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      return entries.map((e) => readFileSync(join(e.parentPath, e.name)).subarray(0, 2).toString('hex'));
    },
    { caching: { enabled: true, type: 'file' } },
  ),
  'caching.kvserver.host': effect(
    { caching: { kvserver: { host: 'localhost' } } },
    async (c) => {
      const { client } = h.client(configWith(c, { caching: { kvserver: { port: dead } } }));
      return client.start().then(
        () => 'started',
        (error: Error) => error.message.replace(/\d+/g, 'N'),
      );
    },
    { caching: { enabled: true, type: 'kvserver' } },
  ),
  'caching.kvserver.port': effect(
    { caching: { kvserver: { port: E2E_REDIS.port } } },
    async (c) => {
      const { client } = h.client(c);
      return client.start().then(
        () => 'started',
        (error: Error) => error.name,
      );
    },
    { caching: { enabled: true, type: 'kvserver', kvserver: { port: 1 } } },
    'redis',
  ),
  'caching.kvserver.password': effect(
    { caching: { kvserver: { password: 'kv-password-sent-at-connect' } } },
    async (c) => {
      resp.received = '';
      const { client } = h.client(configWith(c, { caching: { kvserver: { port: resp.port } } }));
      await client.start().catch(() => undefined);
      return resp.received.includes('kv-password-sent-at-connect');
    },
    { caching: { enabled: true, type: 'kvserver' } },
  ),
  'caching.kvserver.db': effect(
    { caching: { kvserver: { db: 5 } } },
    async (c) => redisKeys(c, [REDIS_A]),
    { caching: { enabled: true, type: 'kvserver', kvserver: { ...E2E_REDIS, keyPrefix: REDIS_A } } },
    'redis',
  ),
  'caching.kvserver.keyPrefix': effect(
    { caching: { kvserver: { keyPrefix: REDIS_C } } },
    async (c) => redisKeys(c, [REDIS_B, REDIS_C]),
    { caching: { enabled: true, type: 'kvserver', kvserver: { ...E2E_REDIS, keyPrefix: REDIS_B } } },
    'redis',
  ),
  'caching.filesystem.directory': effect(
    { caching: { filesystem: { directory: CACHE_DIR_B } } },
    async (c) => {
      await lookupsOver(c, [IP]);
      return [filesIn(CACHE_DIR_A).length > 0, filesIn(CACHE_DIR_B).length > 0];
    },
    { caching: { enabled: true, type: 'file', filesystem: { directory: CACHE_DIR_A } } },
  ),
  'caching.filesystem.maxSize': effect(
    { caching: { filesystem: { maxSize: '10B' } } },
    async (c) => {
      const dir = freshDir(h.path('cache-max-size'));
      await lookupsOver(configWith(c, { caching: { filesystem: { directory: dir } } }), [IP]);
      return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    },
    { caching: { enabled: true, type: 'file' } },
  ),
  'caching.filesystem.cleanupInterval': effect(
    { caching: { filesystem: { cleanupInterval: 20 } } },
    async (c) => {
      const dir = freshDir(h.path('cache-cleanup'));
      const clock = new ManualClock(START);
      const { client } = h.client(configWith(c, { caching: { filesystem: { directory: dir } } }), { clock });
      await client.start();
      await client.scout(IP);
      const files = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
      const written = files();
      // Expired on the cache's clock; only a cleanup run (a real timer) removes it.
      await clock.advance(2 * 3_600_000);
      await until(() => files() === 0, 1000).catch(() => undefined);
      const left = files();
      await client.stop();
      return { written, left };
    },
    { caching: { enabled: true, type: 'file' } },
  ),
};
