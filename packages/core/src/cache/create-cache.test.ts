import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ThreatConfig, ThreatConfigSchema } from '../config/schema.js';
import type { CacheStore } from './cache-store.js';
import { createCache } from './create-cache.js';
import { FileCache } from './file-cache.js';
import { KvServerCache } from './kvserver-cache.js';
import { MemoryCache } from './memory-cache.js';

const caching = (options: ThreatConfig['caching']) =>
  ThreatConfigSchema.parse({ sources: ['feed_otx'], caching: options }).caching;

const opened: CacheStore[] = [];
const track = <T extends CacheStore | undefined>(cache: T): T => {
  if (cache) opened.push(cache);
  return cache;
};

afterEach(async () => {
  await Promise.all(opened.splice(0).map((cache) => cache.close()));
});

describe('createCache', () => {
  it('returns nothing when caching is off', () => {
    expect(createCache(caching({ enabled: false, type: 'kvserver' }))).toBeUndefined();
  });

  it('defaults to the memory cache, bounded by maxSize items', async () => {
    const cache = track(createCache(caching({ maxSize: 2 })));
    expect(cache).toBeInstanceOf(MemoryCache);
    const evicted: number[] = [];
    cache?.onEvict?.((count) => evicted.push(count));
    for (const key of ['a', 'b', 'c']) await cache?.set(key, 1, 1000);
    expect(evicted).toEqual([1]);
  });

  it('passes the clock to the back end', async () => {
    let now = 5000;
    const cache = track(createCache(caching({}), { now: () => now }));
    await cache?.set('k', 1, 1000);
    expect((await cache?.get('k'))?.expiresAt).toBe(6000);
    now = 6000;
    expect(await cache?.get('k')).toBeUndefined();
  });

  it('makes a kvserver cache without connecting', async () => {
    // Port 1 would refuse a connection: nothing fails because nothing is attempted until start() or first use.
    const cache = track(createCache(caching({ type: 'kvserver', kvserver: { port: 1, keyPrefix: 'app:' } })));
    expect(cache).toBeInstanceOf(KvServerCache);
    expect((cache as KvServerCache).address).toBe('127.0.0.1:1');
  });

  describe('file', () => {
    let directory: string;
    afterEach(async () => {
      await rm(directory, { recursive: true, force: true });
    });

    it('makes a file cache in the configured directory, touching the disk only on use', async () => {
      directory = await mkdtemp(join(tmpdir(), 'threatlib-create-cache-'));
      const target = join(directory, 'cache');
      const cache = track(
        createCache(
          caching({ type: 'file', filesystem: { directory: target, maxSize: '2MiB', cleanupInterval: 1000 } }),
        ),
      );
      expect(cache).toBeInstanceOf(FileCache);
      expect((cache as FileCache).maxSize).toBe(2 * 1024 ** 2);
      expect(await readdir(directory)).toEqual([]);
      await cache?.set('k', 1, 1000);
      expect(await readdir(target)).toHaveLength(1);
    });

    it('lets a size string in caching.maxSize win over filesystem.maxSize', async () => {
      directory = await mkdtemp(join(tmpdir(), 'threatlib-create-cache-'));
      const cache = track(
        createCache(caching({ type: 'file', maxSize: '10KB', filesystem: { directory, maxSize: '1GB' } })),
      );
      expect((cache as FileCache).maxSize).toBe(10_000);
    });
  });
});
