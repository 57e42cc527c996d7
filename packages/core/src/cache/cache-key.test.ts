import { describe, expect, it } from 'vitest';
import { cacheKey, fingerprint } from './cache-key.js';
import { sha256Hex } from './sha256.js';
import { stableJson } from './stable-json.js';

const API_KEY = 'otx-0123456789abcdef0123456789abcdef';

describe('fingerprint', () => {
  const base = fingerprint([{ endpoint: 'https://otx.example', categories: [14, 18] }, sha256Hex(API_KEY)]);

  it('is 64 hex digits and never holds the API key, nor its hash, in clear', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(base).not.toContain(API_KEY);
    expect(base).not.toContain(sha256Hex(API_KEY));
    // Even when a caller passes the key itself rather than its hash.
    expect(fingerprint([API_KEY])).not.toContain(API_KEY);
  });

  it('changes when the API key changes', () => {
    const other = fingerprint([{ endpoint: 'https://otx.example', categories: [14, 18] }, sha256Hex(`${API_KEY}x`)]);
    expect(other).not.toBe(base);
  });

  it('changes when an option that changes the answer changes', () => {
    expect(fingerprint([{ endpoint: 'https://mirror.example', categories: [14, 18] }, sha256Hex(API_KEY)])).not.toBe(
      base,
    );
    expect(fingerprint([{ endpoint: 'https://otx.example', categories: [18, 14] }, sha256Hex(API_KEY)])).not.toBe(base);
    expect(fingerprint([{ endpoint: 'https://otx.example' }, sha256Hex(API_KEY)])).not.toBe(base);
  });

  it('does not change with the order options were written in, or with undefined options', () => {
    expect(
      fingerprint([{ categories: [14, 18], timeout: undefined, endpoint: 'https://otx.example' }, sha256Hex(API_KEY)]),
    ).toBe(base);
  });
});

describe('cacheKey', () => {
  const fp = fingerprint([sha256Hex(API_KEY)]);

  it('is feed:type:<sha256 of "value|fingerprint">, with the indicator hashed', () => {
    const key = cacheKey({ feed: 'feed_urls', type: 'url', value: 'https://x/?token=secret', fingerprint: fp });
    expect(key).toBe(`feed_urls:url:${sha256Hex(`https://x/?token=secret|${fp}`)}`);
    expect(key).not.toContain('secret');
  });

  it('differs by feed, type, value and fingerprint', () => {
    const parts = { feed: 'feed_otx', type: 'ipv4', value: '198.51.100.7', fingerprint: fp };
    const keys = new Set([
      cacheKey(parts),
      cacheKey({ ...parts, feed: 'feed_abuse' }),
      cacheKey({ ...parts, type: 'domain' }),
      cacheKey({ ...parts, value: '198.51.100.8' }),
      cacheKey({ ...parts, fingerprint: fingerprint([sha256Hex('another key')]) }),
    ]);
    expect(keys.size).toBe(5);
  });
});

describe('stableJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(stableJson({ b: 1, a: [{ d: 1, c: 2 }, 3], when: new Date('2024-01-01T00:00:00Z') })).toBe(
      '{"a":[{"c":2,"d":1},3],"b":1,"when":"2024-01-01T00:00:00.000Z"}',
    );
  });

  it('refuses what JSON would silently drop or flatten', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [() => 1, Symbol('s'), 1n, new Map(), new Set(), { f: () => 1 }, cycle]) {
      expect(() => stableJson([value])).toThrow(TypeError);
    }
  });

  it('accepts a value seen twice that is not a cycle', () => {
    const shared = { x: 1 };
    expect(stableJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });
});
