import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FeedEmulator, INVALID_KEY, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { parseConfig } from '../config/parse-config.js';
import type { AuditEvent } from '../events/audit-event.js';
import type { FeedErrorEvent } from '../events/threat-events.js';
import { createLogger } from '../logging/create-logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { expectNoSecretIn } from '../security/secret-leaks.test-suite.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const PASSWORD = 'pw-Tr0ub4dor&3-vault-run';
const WRONG_PASSWORD = 'pw-wrong-guess-9931';
const KEYS = {
  feed_otx: 'otx-live-key-1b2c3d4e5f60718293a4b5c6',
  feed_abuse: 'abuse-live-key-a9b8c7d6e5f4a3b2c1d0e9f8',
  feed_scan: 'vt-live-key-0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  feed_urls: 'urlhaus-live-key-55aa66bb77cc',
  // The emulator answers this key with each vendor's own refusal (401/403): the error path of a full run.
  feed_cti: INVALID_KEY,
};
const ROTATED = { feed_otx: 'otx-rotated-key-ffeeddccbbaa99887766', feed_scan: 'vt-rotated-key-112233445566778899aa' };
const SECRETS = [PASSWORD, WRONG_PASSWORD, ...Object.values(KEYS), ...Object.values(ROTATED)];

let emulator: FeedEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startFeedEmulator();
  dir = await mkdtemp(join(tmpdir(), 'threatlib-no-secrets-'));
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a full run logs no key and no password', () => {
  it('vault create/save/lock/unlock/rotate/reopen, feeds asked with keys, failures: nothing secret in any line', async () => {
    const lines: string[] = [];
    const logging = parseConfig({ sources: ['feed_urls'], logging: { level: 'debug' } }).logging;
    const logger = createLogger(logging, { destination: { write: (line: string) => lines.push(line) } });
    const audit: AuditEvent[] = [];
    const feedErrors: Array<[FeedErrorEvent, string]> = [];
    const clock = new ManualClock(START);
    const endpoint = (feed: keyof FeedEmulator['endpoints']) => ({ endpoint: emulator.endpoints[feed], timeout: 2000 });
    const path = join(dir, 'keys.vault');

    const { client, vault } = await ThreatClient.createVault(PASSWORD, KEYS, {
      keyDerivation: 'pbkdf2',
      iterations: 1000,
      enableAuditLog: true,
      autoLock: true,
      lockTimeout: 60_000,
      rotationEnabled: true,
      rotationInterval: 30_000,
      onRotate: () => ROTATED,
      path,
      config: {
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        apiKeys: Object.fromEntries(Object.keys(KEYS).map((feed) => [feed, endpoint(feed as keyof typeof KEYS)])),
        security: { enforceHttps: false, validateCertificates: false },
        // Time stands still on the manual clock: no quota may make a request wait for it.
        performance: { retryAttempts: 0, rateLimit: { enabled: false } },
        events: {
          audit: (event) => void audit.push(event),
          feedError: (error, feed) => void feedErrors.push([error, feed]),
        },
      },
      clientOptions: { env: false, logger, clock },
    });
    await client.start();

    emulator.script('198.51.100.80', { behaviour: 'malicious', feeds: ['feed_scan', 'feed_abuse'] });
    emulator.script('198.51.100.81', { behaviour: 'server_error', feeds: ['feed_otx'] });
    emulator.script('198.51.100.81', { behaviour: 'unauthorized', feeds: ['feed_scan'] });
    await client.correlate('198.51.100.80');
    await client.correlate('198.51.100.81');
    await client.scout('http://malware-drop.com/payload.exe');
    client.updateConcurrency(4);
    await vault.save();

    vault.lock();
    await expect(client.scout('198.51.100.82')).rejects.toThrow(/locked/);
    await expect(vault.unlock(WRONG_PASSWORD)).rejects.toThrow(/wrong password/);
    await vault.unlock(PASSWORD);
    const rotated = new Promise<void>((resolve) =>
      vault.events.on('audit', (e) => e.action === 'vault_saved' && resolve()),
    );
    await clock.advance(30_000);
    await rotated;
    await client.correlate('198.51.100.80');

    await expect(
      ThreatClient.openVault(path, WRONG_PASSWORD, { clientOptions: { env: false, logger, clock } }),
    ).rejects.toThrow(/wrong password/);
    const reopened = await ThreatClient.openVault(path, PASSWORD, {
      enableAuditLog: true,
      config: {
        security: { enforceHttps: false },
        // Every feed on the emulator: a test must never send a key to a real vendor.
        apiKeys: Object.fromEntries(Object.keys(KEYS).map((feed) => [feed, endpoint(feed as keyof typeof KEYS)])),
      },
      clientOptions: { env: false, logger, clock },
    });
    await reopened.client.scout('198.51.100.80');
    await clock.advance(60_000);
    await reopened.client.stop();
    await client.stop();

    // The run did what it claims: keys reached the feeds, failures happened and were logged, audit was on.
    const sent = emulator.requests.map((r) =>
      String(r.headers['x-otx-api-key'] ?? r.headers.key ?? r.headers['x-apikey'] ?? ''),
    );
    expect(sent).toContain(KEYS.feed_otx);
    expect(sent).toContain(ROTATED.feed_otx);
    expect(feedErrors.map(([, feed]) => feed)).toEqual(expect.arrayContaining(['feed_cti', 'feed_otx', 'feed_scan']));
    expect(lines.some((l) => l.includes('"auth_error"') || l.includes('auth_error'))).toBe(true);
    expect(lines.some((l) => l.includes('TLS certificate verification is off'))).toBe(true);
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'vault_created',
        'key_used',
        'vault_locked',
        'vault_unlock_failed',
        'vault_rotated',
        'vault_saved',
      ]),
    );
    expect(lines.filter((l) => l.includes('"audit"')).length).toBeGreaterThan(10);
    expect(lines.length).toBeGreaterThan(30);

    const everything = [...lines, JSON.stringify(audit), JSON.stringify(feedErrors)];
    expectNoSecretIn(everything, SECRETS);
  }, 30_000);
});
