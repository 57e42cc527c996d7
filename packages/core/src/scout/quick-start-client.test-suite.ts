import { fileURLToPath } from 'node:url';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import { BUILTIN_FEED_IDS } from '../feeds/feed-ids.js';
import { silentLogger } from '../logging/logger.js';

/** The example blocklist shipped with core, which `./dev start` loads as list `example`. */
export const EXAMPLE_BLOCKLIST = fileURLToPath(new URL('../../examples/lists/example-blocklist.txt', import.meta.url));

/**
 * A client configured as `threatlib serve` builds one without a config file (packages/server/src/cli/
 * embedded-config.ts): the keyed feeds listed without keys (each answers not_configured, nothing goes on the
 * network), the built-in warninglists, the example blocklist as `list:example`, the `aggressive` strategy.
 * `extra` replaces top-level options (more lists, say).
 */
export function quickStartClient(extra: Partial<ThreatConfig> = {}): ThreatClient {
  return new ThreatClient(
    {
      sources: BUILTIN_FEED_IDS.filter((feed) => feed !== 'feed_urls'),
      strategy: 'aggressive',
      warninglists: { builtin: true },
      lists: [{ name: 'example', file: EXAMPLE_BLOCKLIST, format: 'plain', verdict: 'malicious' }],
      caching: { enabled: true, type: 'memory' },
      ...extra,
    },
    { env: false, logger: silentLogger },
  );
}
