import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_FEED_IDS, type ThreatConfig } from '@threatlib/core';

/** Where the server's shipped data lives. */
const ASSETS = fileURLToPath(new URL('../../assets/', import.meta.url));

/** The example blocklist shipped with `@threatlib/core` (real ipsum addresses and documentation-range examples). */
export function exampleBlocklistPath(): string {
  const core = dirname(createRequire(import.meta.url).resolve('@threatlib/core/package.json'));
  return join(core, 'examples', 'lists', 'example-blocklist.txt');
}

/**
 * What `threatlib serve` runs on without a config file: no keys, no network, no external server. The keyed feeds
 * are listed (each answers `not_configured` until its key is set in the environment), the built-in warninglists
 * plus a few public DNS resolvers answer benign addresses, and the shipped example blocklist is the one offline
 * source; nothing is asked over the network until a key is set. With a single source only the `aggressive`
 * strategy can conclude a threat, so that is the default here (the library's is `defensive`); `THREATLIB_STRATEGY`
 * chooses another.
 */
export function embeddedConfig(env: Readonly<Record<string, string | undefined>> = {}): ThreatConfig {
  // URLhaus answers without a key, so listing it would send requests: it joins only when its key is set. The keyed
  // feeds are listed and answer not_configured until their THREATLIB_FEED_<FEED>_API_KEY is set.
  const sources = BUILTIN_FEED_IDS.filter(
    (feed) => feed !== 'feed_urls' || Boolean(env.THREATLIB_FEED_URLS_API_KEY?.trim()),
  );
  return {
    sources,
    // Left to THREATLIB_STRATEGY when it is set: the constructor's value would override the environment's.
    ...(env.THREATLIB_STRATEGY?.trim() ? {} : { strategy: 'aggressive' as const }),
    warninglists: { builtin: true, files: [join(ASSETS, 'public-dns-resolvers.json')] },
    lists: [{ name: 'example', file: exampleBlocklistPath(), format: 'plain', verdict: 'malicious' }],
    caching: { enabled: true, type: 'memory' },
  };
}
