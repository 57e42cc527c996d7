import { afterEach, describe, expect, it } from 'vitest';
import type { FeedResult } from '../feeds/feed-result.js';
import { CacheError } from './cache-error.js';
import type { CacheStore } from './cache-store.js';

/** A fresh cache under test and the hand on its clock. */
interface CacheUnderTest {
  cache: CacheStore;
  /** Moves the cache's injected clock forward by `ms`. */
  advance(ms: number): void;
}

/** What the suite asks of a factory beyond "a fresh, empty cache". */
interface CacheFactoryOptions {
  /** Build the cache with `compression` on. Back ends without compression ignore it. */
  compression?: boolean;
}

/** Makes a fresh, empty cache that shares no entries with any other the factory made. */
export type CacheFactory = (options?: CacheFactoryOptions) => Promise<CacheUnderTest>;

const HOUR = 3_600_000;

/** A FeedResult-like value with what JSON has to carry faithfully: dates, unicode, nesting, nulls. */
function sampleResult(overrides: Partial<FeedResult> = {}): FeedResult {
  return {
    feed: 'feed_otx',
    indicator: '198.51.100.77',
    type: 'ipv4',
    status: 'ok',
    verdict: 'malicious',
    score: 0.93,
    categories: ['botnet', 'c2'],
    tags: ['Emotet', 'épidémie', 'ботнет', '木马', '🦠'],
    malwareFamilies: ['Emotet'],
    firstSeen: '2024-02-29T23:59:59.999Z',
    lastSeen: new Date('2025-01-01T00:00:00.000Z').toISOString(),
    references: ['https://otx.alienvault.com/indicator/ip/198.51.100.77'],
    evidence: ['seen in 3 pulses'],
    durationMs: 12,
    cached: false,
    raw: { pulses: [[1, [2, [3, { deep: ['x', null, true, -0.5, 1e21] }]]], []], empty: {}, nothing: null },
    ...overrides,
  };
}

/**
 * Counts of the event-loop resources alive now (sockets, timers, file handles...), by kind. A page (the browser
 * project runs this suite against browser storage) has no such list: there it counts nothing.
 */
function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  const { process } = globalThis as { process?: { getActiveResourcesInfo?: () => string[] } };
  for (const kind of process?.getActiveResourcesInfo?.() ?? []) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/**
 * The behaviour every cache back end must show: a FeedResult-like value survives a round trip unchanged (as JSON),
 * misses are undefined, writes overwrite, entries expire by the injected clock, delete and clear remove what they
 * should and nothing else, any key works, compression is transparent, and `close()` leaves no socket or timer
 * behind. Registers its tests under the caller's `describe`; `factory` must return a fresh, empty cache each time
 * (a new directory, a new key prefix).
 *
 * @example
 * ```ts
 * describe('memory', () => cacheComplianceSuite('memory', async () => {
 *   let now = 0;
 *   return { cache: new MemoryCache({ now: () => now }), advance: (ms) => { now += ms; } };
 * }));
 * ```
 */
export function cacheComplianceSuite(name: string, factory: CacheFactory): void {
  const opened: CacheStore[] = [];
  const make = async (options?: CacheFactoryOptions) => {
    const made = await factory(options);
    opened.push(made.cache);
    return made;
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((cache) => cache.close().catch(() => undefined)));
  });

  describe(`${name} honours the cache contract`, () => {
    it('gives back a FeedResult-like value as JSON would, with its expiry', async () => {
      const { cache } = await make();
      const value = sampleResult();
      await cache.set('feed_otx:ipv4:a', value, HOUR);
      const entry = await cache.get<FeedResult>('feed_otx:ipv4:a');
      expect(entry?.value).toEqual(value);
      expect(entry?.value).not.toBe(value);
      expect(entry?.expiresAt).toBeGreaterThan(0);
    });

    it('stores a Date as its ISO string and drops undefined properties, like JSON', async () => {
      const { cache } = await make();
      await cache.set('k', { when: new Date('2024-05-06T07:08:09.010Z'), gone: undefined, list: [undefined] }, HOUR);
      expect((await cache.get('k'))?.value).toEqual({ when: '2024-05-06T07:08:09.010Z', list: [null] });
    });

    it('keeps "__proto__", "constructor" and "prototype" keys of a feed answer as keys, like JSON', async () => {
      const { cache } = await make();
      // What JSON.parse makes of a feed's answer: ordinary own keys.
      const answer = JSON.parse('{"raw":{"__proto__":{"verdict":"clean"},"constructor":{"prototype":{"x":1}}}}');
      await cache.set('k', answer, HOUR);
      const entry = await cache.get<{ raw: Record<string, unknown> }>('k');
      if (!entry) throw new Error('expected a hit');
      const { raw } = entry.value;
      expect(Object.keys(raw)).toEqual(['__proto__', 'constructor']);
      expect(Object.getPrototypeOf(raw)).toBe(Object.prototype);
      expect((raw as { verdict?: unknown }).verdict).toBeUndefined();
      expect(JSON.stringify(raw)).toBe('{"__proto__":{"verdict":"clean"},"constructor":{"prototype":{"x":1}}}');
    });

    it('hands out a copy: changing a result does not change the cache', async () => {
      const { cache } = await make();
      await cache.set('k', sampleResult(), HOUR);
      const first = await cache.get<FeedResult>('k');
      if (!first) throw new Error('expected a hit');
      first.value.cached = true;
      first.value.tags.push('changed');
      expect((await cache.get<FeedResult>('k'))?.value).toEqual(sampleResult());
    });

    it('expiresAt is the clock at write plus the TTL', async () => {
      const { cache, advance } = await make();
      await cache.set('a', 1, 5000);
      await cache.set('b', 1, 9000);
      advance(1000);
      await cache.set('c', 1, 5000);
      const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((key) => cache.get(key)));
      if (!a || !b || !c) throw new Error('expected three hits');
      expect(b.expiresAt - a.expiresAt).toBe(4000);
      expect(c.expiresAt - a.expiresAt).toBe(1000);
    });

    it('misses a key that was never set', async () => {
      const { cache } = await make();
      expect(await cache.get('feed_otx:ipv4:never')).toBeUndefined();
    });

    it('overwrites a key with the new value and the new TTL', async () => {
      const { cache, advance } = await make();
      await cache.set('k', sampleResult({ verdict: 'clean', score: 0 }), 1000);
      await cache.set('k', sampleResult({ verdict: 'suspicious' }), 10_000);
      advance(5000);
      expect((await cache.get<FeedResult>('k'))?.value.verdict).toBe('suspicious');
    });

    it('expires an entry when its TTL has passed on the clock, not before', async () => {
      const { cache, advance } = await make();
      await cache.set('k', sampleResult(), 1000);
      advance(999);
      expect(await cache.get('k')).toBeDefined();
      advance(1);
      expect(await cache.get('k')).toBeUndefined();
    });

    it('deletes one entry and says whether there was one', async () => {
      const { cache } = await make();
      await cache.set('a', 1, HOUR);
      await cache.set('b', 2, HOUR);
      expect(await cache.delete('a')).toBe(true);
      expect(await cache.delete('a')).toBe(false);
      expect(await cache.get('a')).toBeUndefined();
      expect((await cache.get('b'))?.value).toBe(2);
    });

    it('clears its own entries and leaves another store alone', async () => {
      const { cache } = await make();
      const { cache: other } = await make();
      await cache.set('a', 1, HOUR);
      await cache.set('b', 2, HOUR);
      await other.set('a', 'kept', HOUR);
      await cache.clear();
      expect(await cache.get('a')).toBeUndefined();
      expect(await cache.get('b')).toBeUndefined();
      expect((await other.get('a'))?.value).toBe('kept');
      await cache.set('a', 3, HOUR);
      expect((await cache.get('a'))?.value).toBe(3);
    });

    it('takes any key: URLs, path tricks, glob characters, spaces, unicode, long keys', async () => {
      const { cache } = await make();
      const keys = [
        'feed_urls:url:https://x/?a=b&c=%20',
        'feed_urls:url:../../../etc/passwd',
        'feed_urls:url:C:\\Windows\\system32',
        'list:x:*?[a-z]\\',
        'feed_otx:domain:with space\tand\nnewline',
        'feed_otx:domain:xn--bcher-kva.例え.テスト',
        `feed_urls:url:https://x/${'a'.repeat(4000)}`,
        '',
      ];
      for (const [index, key] of keys.entries()) await cache.set(key, { index, key }, HOUR);
      for (const [index, key] of keys.entries()) expect((await cache.get(key))?.value).toEqual({ index, key });
      expect(await cache.delete(keys[0] ?? '')).toBe(true);
      expect((await cache.get(keys[1] ?? ''))?.value).toEqual({ index: 1, key: keys[1] });
    });

    for (const compression of [true, false]) {
      it(`round-trips with compression ${compression ? 'on' : 'off'}`, async () => {
        const { cache } = await make({ compression });
        const value = sampleResult({ evidence: Array.from({ length: 200 }, (_, i) => `reason ${i} ✓`) });
        await cache.set('k', value, HOUR);
        expect((await cache.get('k'))?.value).toEqual(value);
        await cache.set('small', 0, HOUR);
        expect((await cache.get('small'))?.value).toBe(0);
      });
    }

    it('refuses a value JSON cannot carry and a TTL that is not positive', async () => {
      const { cache } = await make();
      await expect(cache.set('k', undefined, HOUR)).rejects.toSatisfy(CacheError.isInstance);
      await expect(cache.set('k', { n: 1n }, HOUR)).rejects.toSatisfy(CacheError.isInstance);
      await expect(cache.set('k', 1, 0)).rejects.toSatisfy(CacheError.isInstance);
      await expect(cache.set('k', 1, Number.NaN)).rejects.toSatisfy(CacheError.isInstance);
      expect(await cache.get('k')).toBeUndefined();
    });

    it('leaves no socket, timer or file handle open after close(), and refuses use afterwards', async () => {
      const before = resourceCounts();
      const { cache } = await make();
      await cache.start?.();
      await cache.set('k', sampleResult(), HOUR);
      await cache.get('k');
      await cache.close();
      // A finished file system request stays listed until the event loop turns once.
      const { setImmediate } = globalThis as { setImmediate?: (callback: () => void) => unknown };
      await new Promise<void>((resolve) => (setImmediate ? setImmediate(resolve) : setTimeout(resolve, 0)));
      const after = resourceCounts();
      const leaked = [...after].filter(([kind, count]) => count > (before.get(kind) ?? 0));
      expect(leaked, 'resources alive after close() that were not before the cache').toEqual([]);
      await expect(cache.get('k')).rejects.toSatisfy(CacheError.isInstance);
      await cache.close();
    });
  });
}
