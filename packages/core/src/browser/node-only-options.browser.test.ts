// The main entry in a page (issues 23 and 24, point 1): `import { ThreatClient } from '@threatlib/core'` loads with no
// Node built-in, and what needs Node.js (a file cache, a Redis cache, e-mail alerts, a TAXII list's state file) is
// refused with a RuntimeUnsupportedError saying so and what to use instead, when it is asked for, never at import.
import { describe, expect, it } from 'vitest';
import { importRateLimiter, importRedis } from '#cluster-modules';
import { fromBase64 } from '../bytes/base64.js';
import { decodeEntry, encodeEntry } from '../cache/entry-codec.js';
import { loadConfig } from '../config/load-config.js';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { ThreatClient, type ThreatConfig } from '../index.js';
import { readListFile } from '../lists/read-list-file.js';
import { FileListStateStore } from '../lists/taxii/list-state-store.js';
import { silentLogger } from '../logging/logger.js';
import { directoryTransport } from '../misp-feed/directory-transport.js';

/** A client of `config` that logs nothing, asking the URL feed. */
function client(config: Partial<ThreatConfig> = {}): ThreatClient {
  return new ThreatClient({ sources: ['feed_urls'], ...config }, { logger: silentLogger });
}

/** The error `make` throws, which must be one. */
function thrownBy(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, and nothing was thrown');
}

// gzip of an entry as Node's zlib writes it (the file and kvserver caches of a Node.js process).
const NODE_GZIP_ENTRY =
  'H4sIAAAAAAAAAxXBOwqAMBAFwLu8OkWUFLKd5xCLfFZYiBjyQwi5uzgzwG+SzGWvILPo1Riz6Z9Ct7ExaKBzDuIrCLeN4uVpBQoXcyigA9a1wpKCwznnB1K+O/1RAAAA';

describe("core's main entry in a page", () => {
  it('makes a client with the default options', async () => {
    await client().stop();
  });

  it.each([
    ['file', /caching\.type "file" is not available in the browser: it needs Node\.js \(a directory on disk\)/],
    ['kvserver', /caching\.type "kvserver" is not available in the browser: it needs Node\.js \(a TCP connection/],
  ] as const)('refuses caching.type %s, saying what to use instead', (type, said) => {
    const error = thrownBy(() => client({ caching: { enabled: true, type } }));
    expect(RuntimeUnsupportedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'RUNTIME_UNSUPPORTED', feature: `caching.type ${type}` });
    expect((error as Error).message).toMatch(said);
    expect((error as Error).message).toContain('storage: {type: "indexeddb"}');
  });

  it('refuses e-mail monitoring alerts, pointing to the webhook', () => {
    const error = thrownBy(() => client({ enterprise: { monitoring: { alerts: { email: 'soc@example.com' } } } }));
    expect(RuntimeUnsupportedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/alerts\.email is not available in the browser: it needs Node\.js/);
    expect((error as Error).message).toContain('enterprise.monitoring.alerts.webhook');
  });

  it("refuses a TAXII list's state file when it is read or written", async () => {
    const store = new FileListStateStore('threatlib-cache/lists/feed.taxii.json');
    await expect(store.load()).rejects.toSatisfy(RuntimeUnsupportedError.isInstance);
    await expect(store.save({ addedAfter: 'x' })).rejects.toThrow(/state in a file, which needs Node\.js/);
  });

  it('refuses list files, MISP feed directories and configuration files, saying what to use instead', async () => {
    await expect(readListFile('lists/blocklist.txt')).rejects.toThrow(
      /lists\[\]\.file is not available in the browser: reading lists\/blocklist\.txt needs Node\.js; .*client\.addList/,
    );
    const error = thrownBy(() => directoryTransport('feeds/misp'));
    expect(RuntimeUnsupportedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('lists[].misp.url');
    await expect(loadConfig()).rejects.toThrow(/needs Node\.js: in a page, pass the configuration object/);
  });

  it('refuses the Redis client and the rate limiter a cluster loads, without loading them', async () => {
    await expect(importRedis()).rejects.toThrow(/cluster is not available in the browser: it needs Node\.js/);
    await expect(importRateLimiter()).rejects.toSatisfy(RuntimeUnsupportedError.isInstance);
  });

  it("stores cache entries gzipped with the page's CompressionStream, and reads those Node.js wrote", async () => {
    const entry = { expiresAt: 4_102_444_800_000, value: { verdict: 'malicious', feeds: ['abuseipdb'] } };
    const compressed = await encodeEntry(entry, true, 'test');
    expect([compressed[0], compressed[1]]).toEqual([0x1f, 0x8b]);
    expect(await decodeEntry(compressed)).toEqual(entry);
    expect(await decodeEntry(await encodeEntry(entry, false, 'test'))).toEqual(entry);
    expect(await decodeEntry(fromBase64(NODE_GZIP_ENTRY))).toEqual(entry);
  });
});
