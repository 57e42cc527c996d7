// Configuration sources of ../shared/INTERFACE.md section 8.2: the constructor object, a `threatlib.config.js` exporting
// profiles (fixtures/threatlib.config.js) whose chosen profile is passed to the constructor, and the environment
// variables. Every variable is set with vi.stubEnv and restored after each example, so nothing leaks into other tests.
import { type Strategy, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EmulatedFeeds, FEEDS, startEmulatedFeeds } from './support.js';

const CONFIG_FILE = new URL('./fixtures/threatlib.config.js', import.meta.url);
const VARIABLES = [
  'THREATLIB_STRATEGY',
  'THREATLIB_MAX_CONCURRENCY',
  'THREATLIB_AUTO_LOCK',
  'THREATLIB_LOCK_TIMEOUT',
  ...FEEDS.map((feed) => `THREATLIB_${feed.toUpperCase()}_API_KEY`),
];

let feeds: EmulatedFeeds;
const clients: ThreatClient[] = [];
const environmentBefore = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(clients.splice(0).map((client) => client.stop()));
});

afterAll(async () => {
  await feeds?.emulator.close();
});

/** A machine whose environment sets none of threatlib's variables. */
function withoutVariables() {
  for (const name of VARIABLES) vi.stubEnv(name, undefined);
}

describe('8.2 threatlib.config.js: profiles keyed by name, the chosen one passed to the constructor', () => {
  it('development: one free source, HTTPS not enforced, auto-lock off, debug logging, caching off', async () => {
    withoutVariables();
    const { default: profiles } = (await import(CONFIG_FILE.href)) as { default: Record<string, ThreatConfig> };
    const profile = profiles.development as ThreatConfig;
    const trojan = new ThreatClient(profile);
    clients.push(trojan);
    expect(trojan.config).toMatchObject({
      sources: ['feed_urls'],
      security: { enforceHttps: false, autoLock: false },
      logging: { level: 'debug' },
      caching: { enabled: false },
    });
    // One source under the default (defensive) strategy can never conclude a threat: that is said too.
    expect(trojan.warnings.map((warning) => warning.code).sort()).toEqual([
      'AUTO_LOCK_DISABLED',
      'HTTPS_NOT_ENFORCED',
      'STRATEGY_CANNOT_CONCLUDE',
    ]);
  });

  it('production: every source, the defensive strategy, the documented security and performance', async () => {
    withoutVariables();
    const { default: profiles } = (await import(CONFIG_FILE.href)) as { default: Record<string, ThreatConfig> };
    const trojan = new ThreatClient(profiles.production as ThreatConfig);
    clients.push(trojan);
    expect(trojan.config).toMatchObject({
      sources: [...FEEDS],
      strategy: 'defensive',
      security: { enforceHttps: true, autoLock: true, lockTimeout: 300000 },
    });
    // Its keys come from the environment; without them, each keyed feed is named in a warning.
    expect(trojan.warnings.filter((w) => w.code === 'MISSING_API_KEY').map((w) => w.path)).toEqual([
      'apiKeys.feed_otx',
      'apiKeys.feed_abuse',
      'apiKeys.feed_cti',
      'apiKeys.feed_scan',
    ]);
  });

  it('enterprise: the custom strategy with consensus 3, confidence 0.6 and riskScore 4 decides', async () => {
    withoutVariables();
    const { default: profiles } = (await import(CONFIG_FILE.href)) as { default: Record<string, ThreatConfig> };
    const enterprise = profiles.enterprise as ThreatConfig;
    // The profile as it is, at the emulator's plain-HTTP addresses.
    const trojan = new ThreatClient({
      ...enterprise,
      apiKeys: feeds.apiKeys,
      security: { ...enterprise.security, enforceHttps: false },
      logging: { enabled: false },
    });
    clients.push(trojan);
    feeds.emulator.script('198.51.100.101', { behaviour: 'malicious', feeds: ['feed_abuse', 'feed_cti'] });
    const correlation = await trojan.correlate('198.51.100.101');
    expect(correlation).toMatchObject({
      strategy: 'custom',
      thresholds: { consensus: 3, confidence: 0.6, riskScore: 4 },
      consensus: 2,
      isThreat: false,
    });
  });
});

describe('8.2 environment variables', () => {
  it('THREATLIB_STRATEGY, THREATLIB_MAX_CONCURRENCY, THREATLIB_AUTO_LOCK, THREATLIB_LOCK_TIMEOUT and one key variable per feed', async () => {
    withoutVariables();
    vi.stubEnv('THREATLIB_STRATEGY', 'aggressive');
    vi.stubEnv('THREATLIB_MAX_CONCURRENCY', '7');
    vi.stubEnv('THREATLIB_AUTO_LOCK', 'true');
    vi.stubEnv('THREATLIB_LOCK_TIMEOUT', '600000');
    for (const feed of FEEDS) vi.stubEnv(`THREATLIB_${feed.toUpperCase()}_API_KEY`, `${feed}-key-from-env`);

    // Only the feeds' addresses are configured: the keys come from the environment.
    const trojan = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      apiKeys: Object.fromEntries(FEEDS.map((feed) => [feed, { endpoint: feeds.emulator.endpoints[feed] }])),
      security: { enforceHttps: false },
      logging: { enabled: false },
    });
    clients.push(trojan);
    expect(trojan.config.strategy).toBe('aggressive');
    expect(trojan.config.performance.maxConcurrency).toBe(7);
    expect(trojan.concurrency).toBe(7);
    expect(trojan.config.security).toMatchObject({ autoLock: true, lockTimeout: 600000 });

    await trojan.scout('198.51.100.102');
    for (const feed of FEEDS) {
      const request = feeds.emulator.requests.find((r) => r.feed === feed && r.indicator === '198.51.100.102');
      expect(Object.values(request?.headers ?? {}), feed).toContain(`${feed}-key-from-env`);
    }
  });

  it('THREATLIB_AUTO_LOCK is true only when the text is "true"', () => {
    withoutVariables();
    vi.stubEnv('THREATLIB_AUTO_LOCK', 'yes');
    const trojan = new ThreatClient({ sources: ['feed_urls'], logging: { enabled: false } });
    clients.push(trojan);
    expect(trojan.config.security.autoLock).toBe(false);
  });

  it('without the variables: the schema defaults (lockTimeout 300000, maxConcurrency 10)', () => {
    withoutVariables();
    const trojan = new ThreatClient({ sources: ['feed_urls'], logging: { enabled: false } });
    clients.push(trojan);
    expect(trojan.config.strategy).toBe('defensive');
    expect(trojan.config.performance.maxConcurrency).toBe(10);
    expect(trojan.config.security).toMatchObject({ autoLock: true, lockTimeout: 300000 });
  });

  it('a configuration that reads the variables itself, with the example fallbacks (5, 300000)', () => {
    const fromEnvironment = (): ThreatConfig => ({
      sources: ['feed_urls'],
      strategy: (process.env.THREATLIB_STRATEGY || 'defensive') as Strategy,
      performance: { maxConcurrency: Number.parseInt(process.env.THREATLIB_MAX_CONCURRENCY ?? '', 10) || 5 },
      security: {
        autoLock: process.env.THREATLIB_AUTO_LOCK === 'true',
        lockTimeout: Number.parseInt(process.env.THREATLIB_LOCK_TIMEOUT ?? '', 10) || 300000,
      },
      logging: { enabled: false },
    });

    withoutVariables();
    const fallback = new ThreatClient(fromEnvironment());
    clients.push(fallback);
    expect(fallback.config.strategy).toBe('defensive');
    expect(fallback.config.performance.maxConcurrency).toBe(5);
    expect(fallback.config.security).toMatchObject({ autoLock: false, lockTimeout: 300000 });

    vi.stubEnv('THREATLIB_STRATEGY', 'balanced');
    vi.stubEnv('THREATLIB_MAX_CONCURRENCY', '8');
    vi.stubEnv('THREATLIB_AUTO_LOCK', 'true');
    vi.stubEnv('THREATLIB_LOCK_TIMEOUT', '120000');
    const set = new ThreatClient(fromEnvironment());
    clients.push(set);
    expect(set.config.strategy).toBe('balanced');
    expect(set.config.performance.maxConcurrency).toBe(8);
    expect(set.config.security).toMatchObject({ autoLock: true, lockTimeout: 120000 });
  });

  it('leaves the environment as it found it', () => {
    expect(Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]))).toEqual(environmentBefore);
  });
});
