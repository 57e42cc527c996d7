import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FeedEmulator, INVALID_KEY, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../alerts/alert.js';
import type { CacheEntry, CacheStore } from '../cache/cache-store.js';
import { ThreatClient } from '../client/threat-client.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Integration, IntegrationHealth } from '../integration/integration.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';

const START = Date.parse('2026-12-01T00:00:00Z');
const OTX_KEY = 'otx-live-key-health-0123456789ab';

let emulator: FeedEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startFeedEmulator();
  dir = await mkdtemp(join(tmpdir(), 'threatlib-health-'));
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

function config(extra: Partial<ThreatConfig> = {}): ThreatConfig {
  return {
    sources: ['feed_otx'],
    apiKeys: { feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx, timeout: 2000 } },
    security: { enforceHttps: false },
    performance: {
      retryAttempts: 0,
      rateLimit: { enabled: false },
      circuitBreaker: { failureThreshold: 2, resetTimeout: 60_000, monitoringWindow: 300_000 },
    },
    ...extra,
  };
}

/** An integration whose `health()` answers what the test says (or never answers). */
function integrationAnswering(answer: () => IntegrationHealth | Promise<IntegrationHealth>) {
  return class implements Integration {
    health() {
      return answer();
    }
    async sendAlert(_alert: Alert) {
      return undefined;
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

describe('client.health()', () => {
  it('healthy: every feed answers, the memory cache round trip works, no vault, integrations healthy', async () => {
    const clock = new ManualClock(START);
    const client = new ThreatClient(config(), { env: false, logger: silentLogger, clock });
    client.registerIntegration(
      'siem',
      integrationAnswering(() => ({ healthy: true, detail: 'connected' })),
    );
    await client.start();
    try {
      await client.scout('198.51.100.1');
      const report = await client.health();
      expect(report).toMatchObject({
        status: 'healthy',
        checkedAt: '2026-12-01T00:00:00.000Z',
        reasons: [],
        checks: {
          feeds: [{ feed: 'feed_otx', name: 'AlienVault OTX', status: 'pass', configured: true, breaker: 'closed' }],
          cache: { status: 'pass', enabled: true, kind: 'memory', roundTripMs: expect.any(Number) },
          vault: { status: 'pass', configured: false },
          integrations: [{ name: 'siem', status: 'pass', healthy: true, detail: 'connected' }],
        },
      });
      expect(report.checks.feeds[0]?.keyRejected).toBe(false);
    } finally {
      await client.stop();
    }
  });

  it('degraded: a refused key, then an open breaker, named in reasons; a success clears the refusal', async () => {
    const clock = new ManualClock(START);
    const client = new ThreatClient(
      config({
        sources: ['feed_otx', 'feed_cti'],
        apiKeys: {
          feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx, timeout: 2000 },
          feed_cti: { key: INVALID_KEY, endpoint: emulator.endpoints.feed_cti, timeout: 2000 },
        },
        caching: { enabled: false },
      }),
      { env: false, logger: silentLogger, clock },
    );
    await client.scout('198.51.100.2');
    let report = await client.health();
    expect(report.status).toBe('degraded');
    const cti = report.checks.feeds.find((f) => f.feed === 'feed_cti');
    expect(cti).toMatchObject({
      status: 'fail',
      keyRejected: true,
      breaker: 'closed',
      lastError: { status: 'auth_error' },
    });
    expect(report.reasons).toEqual([
      expect.stringMatching(/^feed_cti: its API key was refused \(HTTP 40[13]\) at 2026-/),
    ]);
    expect(report.checks.cache).toEqual({ status: 'pass', enabled: false });

    emulator.script('198.51.100.3', { behaviour: 'server_error', feeds: ['feed_otx'] });
    emulator.script('198.51.100.4', { behaviour: 'server_error', feeds: ['feed_otx'] });
    await client.scout('198.51.100.3');
    await client.scout('198.51.100.4');
    report = await client.health();
    expect(report.status).toBe('degraded');
    expect(report.checks.feeds.find((f) => f.feed === 'feed_otx')).toMatchObject({
      status: 'fail',
      breaker: 'open',
      nextTrialAt: '2026-12-01T00:01:00.000Z',
      reason: 'circuit breaker open until 2026-12-01T00:01:00.000Z',
    });

    await clock.advance(60_000);
    report = await client.health();
    expect(report.checks.feeds.find((f) => f.feed === 'feed_otx')).toMatchObject({
      status: 'warn',
      breaker: 'half_open',
    });
    expect(report.status).toBe('degraded');
    await client.scout('198.51.100.5');
    report = await client.health();
    expect(report.checks.feeds.find((f) => f.feed === 'feed_otx')).toMatchObject({ status: 'pass', breaker: 'closed' });
    expect(client.feedStatus().find((s) => s.feed === 'feed_cti')?.keyRejected).toMatchObject({
      at: expect.any(String),
    });
    emulator.reset();
    await client.stop();
  });

  it('a feed without its key is not_configured, not a failure: the client stays healthy', async () => {
    const client = new ThreatClient(
      { sources: ['feed_urls', 'feed_scan'], security: { enforceHttps: false } },
      { env: false, logger: silentLogger },
    );
    const report = await client.health();
    expect(report.status).toBe('healthy');
    expect(report.reasons).toEqual([]);
    expect(report.checks.feeds).toEqual([
      expect.objectContaining({ feed: 'feed_urls', status: 'pass', configured: true }),
      expect.objectContaining({
        feed: 'feed_scan',
        status: 'not_configured',
        configured: false,
        reason: 'no API key configured: it is never asked',
      }),
    ]);
  });

  it('unhealthy while the vault is locked; healthy again once unlocked', async () => {
    const clock = new ManualClock(START);
    const password = 'pw-health-vault-31f8';
    const { client, vault } = await ThreatClient.createVault(
      password,
      { feed_otx: { key: OTX_KEY, endpoint: emulator.endpoints.feed_otx, timeout: 2000 } },
      {
        keyDerivation: 'pbkdf2',
        iterations: 1000,
        autoLock: false,
        config: { security: { enforceHttps: false }, performance: { retryAttempts: 0 } },
        clientOptions: { env: false, logger: silentLogger, clock },
      },
    );
    expect((await client.health()).checks.vault).toEqual({
      status: 'pass',
      configured: true,
      locked: false,
      feeds: ['feed_otx'],
    });
    vault.lock();
    const locked = await client.health();
    expect(locked.status).toBe('unhealthy');
    expect(locked.checks.vault).toMatchObject({ status: 'fail', locked: true });
    expect(locked.reasons).toEqual([expect.stringMatching(/^vault: locked/)]);
    expect(JSON.stringify(locked)).not.toContain(OTX_KEY);
    await vault.unlock(password);
    expect((await client.health()).status).toBe('healthy');
    await client.stop();
  });

  it('unhealthy when an integration says so, or when its health() does not answer in time', async () => {
    const clock = new ManualClock(START);
    const client = new ThreatClient(config(), { env: false, logger: silentLogger, clock });
    client.registerIntegration(
      'queue',
      integrationAnswering(() => ({ healthy: false, detail: 'broker unreachable' })),
    );
    client.registerIntegration(
      'stuck',
      integrationAnswering(() => new Promise<IntegrationHealth>(() => {})),
    );
    const checking = client.health({ timeoutMs: 1_000 });
    await clock.advance(1_000);
    const report = await checking;
    expect(report.status).toBe('unhealthy');
    expect(report.checks.integrations).toEqual([
      { name: 'queue', status: 'fail', healthy: false, detail: 'broker unreachable' },
      {
        name: 'stuck',
        status: 'fail',
        healthy: false,
        detail: 'integration "stuck" health() did not finish within 1000 ms',
      },
    ]);
  });

  it('the cache check is a real round trip: a file cache passes, a failing or hanging one fails (degraded)', async () => {
    const clock = new ManualClock(START);
    const file = new ThreatClient(
      config({ caching: { type: 'file', filesystem: { directory: join(dir, 'cache') } } }),
      { env: false, logger: silentLogger, clock },
    );
    await file.start();
    expect((await file.health()).checks.cache).toMatchObject({ status: 'pass', enabled: true, kind: 'file' });
    await file.stop();

    const failing = new ThreatClient(config(), {
      env: false,
      logger: silentLogger,
      clock,
      cache: brokenCache(() => Promise.reject(new Error('cannot reach 127.0.0.1:6390'))),
    });
    const failed = await failing.health();
    expect(failed.status).toBe('degraded');
    expect(failed.checks.cache).toMatchObject({
      status: 'fail',
      kind: 'broken',
      reason: 'cannot reach 127.0.0.1:6390',
    });
    expect(failed.reasons).toEqual(['cache: cannot reach 127.0.0.1:6390']);

    const hanging = new ThreatClient(config(), {
      env: false,
      logger: silentLogger,
      clock,
      cache: brokenCache(() => new Promise(() => {})),
    });
    const checking = hanging.health({ timeoutMs: 2_000 });
    await clock.advance(2_000);
    expect((await checking).checks.cache).toMatchObject({
      status: 'fail',
      reason: 'the write/read/delete round trip did not finish within 2000 ms',
    });
  });
});

/** A cache whose every call answers `outcome()`. */
function brokenCache(outcome: () => Promise<never>): CacheStore {
  return {
    kind: 'broken',
    get: <T>() => outcome() as Promise<CacheEntry<T> | undefined>,
    set: () => outcome(),
    delete: () => outcome(),
    clear: () => outcome(),
    close: async () => {},
  };
}
