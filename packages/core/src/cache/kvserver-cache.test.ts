import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CacheError } from './cache-error.js';
import { KvServerCache, type KvServerCacheOptions } from './kvserver-cache.js';
import { describeWithRedis, E2E_REDIS, uniquePrefix } from './redis-e2e.test-suite.js';

const HOUR = 3_600_000;
const caches: KvServerCache[] = [];

afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
});

function open(options: KvServerCacheOptions = {}) {
  const cache = new KvServerCache({ ...E2E_REDIS, keyPrefix: uniquePrefix('kv'), ...options });
  caches.push(cache);
  return cache;
}

/** A loopback port nothing listens on: bound by us a moment ago, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('KvServerCache without a server', () => {
  it("says how to install 'redis' when the package cannot be loaded", async () => {
    const cache = open({
      loadRedis: () => Promise.reject(new Error("Cannot find package 'redis' imported from core")),
    });
    const failure = cache.start();
    await expect(failure).rejects.toSatisfy(CacheError.isInstance);
    await expect(failure).rejects.toThrow("caching.type 'kvserver' needs the 'redis' package: npm install redis");
  });

  it('names host:port, and never the password, when Redis cannot be reached', async () => {
    const port = await closedPort();
    const password = 'hunter2-very-secret';
    const cache = open({ port, password });
    const error = await cache.get('k').catch((e: unknown) => e);
    expect(CacheError.isInstance(error)).toBe(true);
    expect((error as CacheError).message).toContain(`cannot connect to the Redis cache at 127.0.0.1:${port}`);
    expect((error as CacheError).backend).toBe('kvserver');
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(password);
    expect(String((error as CacheError).message)).not.toContain(password);
  });

  it('gives up after connectTimeout on a server that accepts and never answers, leaving no socket', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      // Read (and ignore) what the client sends, or the socket never notices the client hanging up.
      socket.resume();
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    try {
      const cache = open({ port: address.port, connectTimeout: 150 });
      await expect(cache.start()).rejects.toThrow(`127.0.0.1:${address.port}`);
      await expect(cache.start()).rejects.toThrow(/timed out after 150 ms/);
      await cache.close();
      // Our side is gone once the server sees every connection closed.
      await expect.poll(() => sockets.size).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('closes cleanly when it never connected', async () => {
    const cache = open();
    await cache.close();
    await expect(cache.get('k')).rejects.toThrow('the kvserver cache is closed');
  });
});

describeWithRedis(`KvServerCache on Redis at ${E2E_REDIS.host}:${E2E_REDIS.port}`, (admin) => {
  it('stores each entry as keyPrefix + key with a PX expiry Redis enforces', async () => {
    const keyPrefix = uniquePrefix('px');
    const cache = open({ keyPrefix });
    await cache.set('feed_otx:ipv4:abc', { verdict: 'clean' }, 60_000);
    const pttl = await admin().pTTL(`${keyPrefix}feed_otx:ipv4:abc`);
    expect(pttl).toBeGreaterThan(55_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it('lets Redis drop an entry when its TTL ends', async () => {
    // The one place real time is needed: only Redis's own clock can show that PX was honoured.
    const keyPrefix = uniquePrefix('expiry');
    const cache = open({ keyPrefix });
    await cache.set('k', 1, 50);
    await expect.poll(() => admin().exists(`${keyPrefix}k`), { interval: 20, timeout: 2000 }).toBe(0);
  });

  it('clears only its prefix, in batches, even when the prefix holds glob characters', async () => {
    const keyPrefix = uniquePrefix('glob[1]*?');
    const lookalike = `${keyPrefix.replace('glob[1]*?', 'glob1xx')}`;
    const cache = open({ keyPrefix });
    await Promise.all(Array.from({ length: 1200 }, (_, i) => cache.set(`k${i}`, i, HOUR)));
    await admin().set(`${lookalike}k1`, 'other');
    await admin().set(`${keyPrefix.slice(0, -1)}`, 'prefix without its colon');
    await cache.clear();
    const left: string[] = [];
    const match = `${keyPrefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    for await (const keys of admin().scanIterator({ MATCH: match, COUNT: 1000 })) left.push(...keys);
    expect(left).toEqual([]);
    expect(await admin().get(`${lookalike}k1`)).toBe('other');
    expect(await admin().get(keyPrefix.slice(0, -1))).toBe('prefix without its colon');
  });

  it('refuses to clear with an empty keyPrefix rather than empty the database', async () => {
    const cache = open({ keyPrefix: '' });
    await expect(cache.clear()).rejects.toThrow(/keyPrefix is empty/);
  });

  it('marks compressed values, so a reader with compression off still reads them', async () => {
    const keyPrefix = uniquePrefix('gzip');
    const value = { evidence: Array.from({ length: 100 }, () => 'seen in a pulse') };
    await open({ keyPrefix, compression: true }).set('z', value, HOUR);
    await open({ keyPrefix, compression: false }).set('p', value, HOUR);
    const raw = admin().withTypeMapping({ 36: Buffer });
    const z = (await raw.get(`${keyPrefix}z`)) as unknown as Buffer;
    const p = (await raw.get(`${keyPrefix}p`)) as unknown as Buffer;
    expect([...z.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(p.toString('utf8')).toMatch(/^\{"expiresAt":\d+,"value":/);
    expect((await open({ keyPrefix, compression: false }).get('z'))?.value).toEqual(value);
    expect((await open({ keyPrefix, compression: true }).get('p'))?.value).toEqual(value);
  });

  it('reads a value it cannot decode as a miss and removes it', async () => {
    const keyPrefix = uniquePrefix('corrupt');
    await admin().set(`${keyPrefix}k`, 'written by something else');
    expect(await open({ keyPrefix }).get('k')).toBeUndefined();
    expect(await admin().exists(`${keyPrefix}k`)).toBe(0);
  });

  it('connects on start() and uses the configured database', async () => {
    const keyPrefix = uniquePrefix('db');
    const cache = open({ keyPrefix, db: 3 });
    await cache.start();
    await cache.set('k', 1, HOUR);
    expect(await admin().exists(`${keyPrefix}k`)).toBe(0);
    expect((await cache.get('k'))?.value).toBe(1);
    await cache.clear();
  });
});
