import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ThreatClient } from '../src/client/threat-client.js';
import { loadConfig } from '../src/config/load-config.js';
import { silentLogger } from '../src/logging/logger.js';

const file = fileURLToPath(new URL('./threatlib.config.js', import.meta.url));

async function clientFor(profile: string, env: Record<string, string> = {}) {
  return new ThreatClient(await loadConfig({ file, profile, env }), { env, logger: silentLogger });
}

describe('the shipped example config file', () => {
  it('development: feed_urls only, HTTPS not enforced, auto-lock off, debug logging, no cache', async () => {
    const client = await clientFor('development');
    expect(client.config.sources).toEqual(['feed_urls']);
    expect(client.config.security.enforceHttps).toBe(false);
    expect(client.config.security.autoLock).toBe(false);
    expect(client.config.logging.level).toBe('debug');
    expect(client.config.caching.enabled).toBe(false);
    expect(client.warnings.map((w) => w.code)).toEqual(['HTTPS_NOT_ENFORCED', 'AUTO_LOCK_DISABLED']);
  });

  it('production: every feed, keys from the environment', async () => {
    const env = {
      THREATLIB_FEED_OTX_API_KEY: 'o',
      THREATLIB_FEED_ABUSE_API_KEY: 'a',
      THREATLIB_FEED_CTI_API_KEY: 'c',
      THREATLIB_FEED_SCAN_API_KEY: 's',
    };
    const client = await clientFor('production', env);
    expect(client.config.sources).toHaveLength(5);
    expect(client.config.security.enforceHttps).toBe(true);
    expect(client.warnings).toEqual([]);
  });

  it('enterprise: custom strategy with consensus 3, confidence 0.6, risk score 4', async () => {
    const client = await clientFor('enterprise');
    expect(client.config.strategy).toBe('custom');
    expect(client.config.thresholds).toEqual({ consensus: 3, confidence: 0.6, riskScore: 4, correlationWeight: 1 });
  });
});
