import { describe, expect, it } from 'vitest';
import { CacheError } from './cache-error.js';
import { DEFAULT_MEMORY_CACHE_SIZE, MemoryCache } from './memory-cache.js';

const HOUR = 3_600_000;

function cacheWithClock(maxSize?: number) {
  let now = 1_000_000;
  const evictions: number[] = [];
  const cache = new MemoryCache({ maxSize, now: () => now });
  cache.onEvict((count) => evictions.push(count));
  return {
    cache,
    evictions,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('MemoryCache', () => {
  it('drops the least recently used entry when full, and tells onEvict', async () => {
    const { cache, evictions } = cacheWithClock(3);
    await cache.set('a', 1, HOUR);
    await cache.set('b', 2, HOUR);
    await cache.set('c', 3, HOUR);
    await cache.get('a'); // a is now more recently used than b
    await cache.set('d', 4, HOUR);
    expect(evictions).toEqual([1]);
    expect(await cache.get('b')).toBeUndefined();
    expect((await cache.get('a'))?.value).toBe(1);
    expect((await cache.get('c'))?.value).toBe(3);
    expect((await cache.get('d'))?.value).toBe(4);
    expect(cache.size).toBe(3);
  });

  it('does not count overwrites, deletes, clears or expiry as evictions', async () => {
    const { cache, evictions, advance } = cacheWithClock(2);
    await cache.set('a', 1, 1000);
    await cache.set('a', 2, 1000);
    await cache.set('b', 1, HOUR);
    await cache.delete('b');
    advance(1000);
    expect(await cache.get('a')).toBeUndefined();
    await cache.set('c', 1, HOUR);
    await cache.clear();
    expect(evictions).toEqual([]);
  });

  it('does not count pushing out an entry that had already expired', async () => {
    const { cache, evictions, advance } = cacheWithClock(2);
    await cache.set('old', 1, 1000);
    await cache.set('live', 2, HOUR);
    advance(5000);
    await cache.set('new', 3, HOUR);
    expect(evictions).toEqual([]);
    expect((await cache.get('live'))?.value).toBe(2);
  });

  it(`keeps ${DEFAULT_MEMORY_CACHE_SIZE} entries by default`, async () => {
    const { cache, evictions } = cacheWithClock();
    for (let i = 0; i <= DEFAULT_MEMORY_CACHE_SIZE; i += 1) await cache.set(`k${i}`, i, HOUR);
    expect(cache.size).toBe(DEFAULT_MEMORY_CACHE_SIZE);
    expect(evictions).toEqual([1]);
    expect(await cache.get('k0')).toBeUndefined();
  });

  it('refuses a maxSize that is not a whole number of entries', () => {
    for (const maxSize of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MemoryCache({ maxSize })).toThrow(CacheError);
    }
  });
});
