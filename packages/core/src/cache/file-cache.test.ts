import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CacheError } from './cache-error.js';
import { DEFAULT_FILE_CACHE_DIRECTORY, FileCache, type FileCacheOptions, type SweepOutcome } from './file-cache.js';
import { sha256Hex } from './sha256.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2025-06-01T12:00:00Z');

let directory: string;
const caches: FileCache[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'threatlib-file-cache-'));
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
  await rm(directory, { recursive: true, force: true });
});

function open(options: FileCacheOptions = {}) {
  let now = T0;
  const evictions: number[] = [];
  const cache = new FileCache({ directory, now: () => now, ...options });
  cache.onEvict((count) => evictions.push(count));
  caches.push(cache);
  return {
    cache,
    evictions,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const entryPath = (key: string) => join(directory, `${sha256Hex(key)}.cache`);

async function bytesOnDisk(): Promise<number> {
  let total = 0;
  for (const name of await readdir(directory)) {
    if (name.endsWith('.cache')) total += (await stat(join(directory, name))).size;
  }
  return total;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('FileCache: maxSize', () => {
  it('deletes the oldest-written entries once a write goes over maxSize, and tells onEvict', async () => {
    const { cache, evictions } = open({ maxSize: '1KB' });
    const value = 'x'.repeat(250); // each file is a little over 300 bytes
    for (const key of ['a', 'b', 'c']) await cache.set(key, value, HOUR);
    expect(evictions).toEqual([]);
    await cache.set('d', value, HOUR);
    expect(evictions).toEqual([1]);
    expect(await cache.get('a')).toBeUndefined();
    expect(await exists(entryPath('a'))).toBe(false);

    // Rewriting b makes it the newest, so c is the next to go.
    await cache.set('b', value, HOUR);
    await cache.set('e', value, HOUR);
    expect(evictions).toEqual([1, 1]);
    expect(await cache.get('c')).toBeUndefined();
    for (const key of ['b', 'd', 'e']) expect((await cache.get(key))?.value).toBe(value);

    expect(cache.totalSize).toBe(await bytesOnDisk());
    expect(cache.totalSize).toBeLessThanOrEqual(1000);
  });

  it('evicts several entries in one write when it must, reporting them together', async () => {
    const { cache, evictions } = open({ maxSize: 1000 });
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) await cache.set(key, 'x'.repeat(100), HOUR);
    await cache.set('big', 'y'.repeat(700), HOUR);
    expect(evictions.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(3);
    expect(evictions.at(-1)).toBeGreaterThan(1);
    expect((await cache.get('big'))?.value).toBe('y'.repeat(700));
    expect(await bytesOnDisk()).toBeLessThanOrEqual(1000);
  });

  it('does not keep an entry larger than maxSize on its own', async () => {
    const { cache, evictions } = open({ maxSize: '200B' });
    await cache.set('small', 1, HOUR);
    await cache.set('huge', 'z'.repeat(500), HOUR);
    expect(evictions).toEqual([2]);
    expect(await cache.get('huge')).toBeUndefined();
    expect(await bytesOnDisk()).toBe(0);
    expect(cache.totalSize).toBe(0);
  });

  it('builds its index from the directory once at open, oldest file first', async () => {
    const first = open();
    for (const key of ['a', 'b', 'c']) await first.cache.set(key, 'x'.repeat(250), HOUR);
    await first.cache.close();
    // Make the write order unambiguous whatever the file system's time resolution.
    for (const [index, key] of ['c', 'a', 'b'].entries()) {
      const when = new Date(T0 + index * 1000);
      await utimes(entryPath(key), when, when);
    }
    const onDisk = await bytesOnDisk();

    const same = open();
    await same.cache.start();
    expect(same.cache.totalSize).toBe(onDisk);

    // A lower maxSize is enforced at open: c is the oldest file, then a.
    const smaller = open({ maxSize: onDisk - 1 });
    await smaller.cache.start();
    expect(smaller.evictions).toEqual([1]);
    expect(await exists(entryPath('c'))).toBe(false);
    expect(await exists(entryPath('a'))).toBe(true);
  });
});

describe('FileCache: cleanup', () => {
  it('sweeps expired entries every cleanupInterval on the clock, once started, and reports each sweep', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const sweeps: SweepOutcome[] = [];
    let swept: () => void = () => undefined;
    const { cache, advance } = open({
      cleanupInterval: 60_000,
      onSweep: (outcome) => {
        sweeps.push(outcome);
        swept();
      },
    });
    await cache.set('short', 1, 1000);
    await cache.set('long', 2, HOUR);
    expect(vi.getTimerCount()).toBe(0); // no timer until start()

    await cache.start();
    expect(vi.getTimerCount()).toBe(1);
    advance(2000);
    const done = new Promise<void>((resolve) => {
      swept = resolve;
    });
    vi.advanceTimersByTime(60_000);
    await done;

    expect(sweeps).toEqual([{ removed: 1 }]);
    expect(await exists(entryPath('short'))).toBe(false);
    expect(await exists(entryPath('long'))).toBe(true);
    expect(cache.totalSize).toBe(await bytesOnDisk());

    await cache.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps its timer from holding the process open', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const { cache } = open({ cleanupInterval: 1000 });
    await cache.start();
    // A ref'd cleanup timer would add one; other tests' timers may have fired meanwhile, so "no more than before".
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('sweeps files found at open, reading each to learn its expiry, and removes corrupt ones', async () => {
    const writer = open();
    await writer.cache.set('expired', 1, 1000);
    await writer.cache.set('live', 2, HOUR);
    await writer.cache.close();
    await writeFile(join(directory, `${sha256Hex('junk')}.cache`), 'not json at all');

    const reader = open();
    reader.advance(5000);
    expect(await reader.cache.sweep()).toBe(2);
    expect((await reader.cache.get('live'))?.value).toBe(2);
    expect(reader.cache.totalSize).toBe(await bytesOnDisk());
  });

  it('removes temp files a crash left behind, but not a write that may be under way', async () => {
    const stale = join(directory, `${sha256Hex('a')}.cache.123-abc.tmp`);
    const fresh = join(directory, `${sha256Hex('b')}.cache.456-def.tmp`);
    await writeFile(stale, 'half');
    await writeFile(fresh, 'half');
    const hourAgo = new Date(Date.now() - HOUR);
    await utimes(stale, hourAgo, hourAgo);
    const { cache } = open();
    await cache.start();
    expect(await exists(stale)).toBe(false);
    expect(await exists(fresh)).toBe(true);
  });
});

describe('FileCache: files', () => {
  it('names each file by the SHA-256 of its key and leaves no temp file behind', async () => {
    const { cache } = open();
    await cache.set('feed_urls:url:https://x/?a=b&c=%20', 1, HOUR);
    await cache.set('../../escape', 2, HOUR);
    expect((await readdir(directory)).sort()).toEqual(
      [`${sha256Hex('feed_urls:url:https://x/?a=b&c=%20')}.cache`, `${sha256Hex('../../escape')}.cache`].sort(),
    );
  });

  it('reads a damaged or misplaced file as a miss and removes it', async () => {
    const { cache } = open();
    await cache.set('good', { ok: true }, HOUR);
    const cases: Array<[string, Buffer]> = [
      ['garbage', Buffer.from('{"expiresAt":')],
      ['truncated-gzip', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01])],
      ['wrong-shape', Buffer.from('{"value":1}')],
      ['not-an-object', Buffer.from('[1,2,3]')],
      // A valid entry for another key, copied under this key's name.
      ['misplaced', await readFile(entryPath('good'))],
    ];
    for (const [key, bytes] of cases) {
      await writeFile(entryPath(key), bytes);
      expect(await cache.get(key), key).toBeUndefined();
      expect(await exists(entryPath(key)), key).toBe(false);
    }
    expect((await cache.get('good'))?.value).toEqual({ ok: true });
  });

  it('removes an expired file when it is read', async () => {
    const { cache, advance } = open();
    await cache.set('k', 1, 1000);
    advance(1000);
    expect(await cache.get('k')).toBeUndefined();
    expect(await exists(entryPath('k'))).toBe(false);
    expect(cache.totalSize).toBe(0);
  });

  it('gzips when compression is on, and any reader reads both forms', async () => {
    const value = { evidence: Array.from({ length: 100 }, () => 'seen in a pulse') };
    const zipped = open({ compression: true });
    const plain = open({ compression: false });
    await zipped.cache.set('z', value, HOUR);
    await plain.cache.set('p', value, HOUR);
    const z = await readFile(entryPath('z'));
    const p = await readFile(entryPath('p'));
    expect([...z.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(p.toString('utf8')).toMatch(/^\{"expiresAt":\d+,"key":"p","value":/);
    expect(z.length).toBeLessThan(p.length);
    expect((await plain.cache.get('z'))?.value).toEqual(value);
    expect((await zipped.cache.get('p'))?.value).toEqual(value);
  });

  it('clears entries only, leaving other files in the directory alone', async () => {
    const { cache } = open();
    await writeFile(join(directory, 'README.txt'), 'not a cache entry');
    await cache.set('a', 1, HOUR);
    await cache.clear();
    expect(await readdir(directory)).toEqual(['README.txt']);
    expect(cache.totalSize).toBe(0);
  });

  it('creates its directory private, and refuses one anyone can write to', async () => {
    const nested = join(directory, 'deeper', 'cache');
    const { cache } = open({ directory: nested });
    await cache.set('a', 1, HOUR);
    expect((await stat(nested)).mode & 0o777).toBe(0o700);

    const shared = join(directory, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
    const refused = open({ directory: shared });
    await expect(refused.cache.get('a')).rejects.toThrow(/anyone can write there/);
    await expect(refused.cache.start()).rejects.toSatisfy(CacheError.isInstance);
  });

  it('says which directory it could not use', async () => {
    const file = join(directory, 'a-file');
    await writeFile(file, '');
    const { cache } = open({ directory: join(file, 'cache') });
    await expect(cache.set('a', 1, HOUR)).rejects.toThrow(CacheError);
    await expect(cache.set('a', 1, HOUR)).rejects.toThrow(file);
  });

  it('defaults to <tmpdir>/threatlib-cache and 100 MB', () => {
    const cache = new FileCache();
    expect(cache.directory).toBe(DEFAULT_FILE_CACHE_DIRECTORY);
    expect(DEFAULT_FILE_CACHE_DIRECTORY).toBe(join(tmpdir(), 'threatlib-cache'));
    expect(cache.maxSize).toBe(100_000_000);
  });

  it('refuses a bad maxSize or cleanupInterval when built', () => {
    expect(() => new FileCache({ directory, maxSize: '100 parsecs' })).toThrow(/caching\.filesystem\.maxSize/);
    expect(() => new FileCache({ directory, maxSize: 0 })).toThrow(CacheError);
    expect(() => new FileCache({ directory, cleanupInterval: 0 })).toThrow(CacheError);
  });
});
