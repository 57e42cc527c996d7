import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyConfig, ThreatConfig } from '../config/schema.js';
import type { AuditEvent } from '../events/audit-event.js';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { VaultAuthError } from '../vault/vault-auth-error.js';
import { VaultCorruptError } from '../vault/vault-corrupt-error.js';
import { VaultLockedError } from '../vault/vault-locked-error.js';
import type { VaultOptions } from '../vault/vault-options.js';
import { ThreatClient } from './threat-client.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const PASSWORD = 'vault password for the client tests';
const OTX = 'otx-key-held-in-the-vault-5d2e';
const ABUSE = 'abuse-key-held-in-the-vault-77c1';

let emulator: FeedEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startFeedEmulator();
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  emulator.reset();
  dir = await mkdtemp(join(tmpdir(), 'threatlib-vault-client-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function onEmulator(feed: 'feed_otx' | 'feed_abuse', key?: string): ApiKeyConfig {
  return { ...(key ? { key } : {}), endpoint: emulator.endpoints[feed], timeout: 2000 };
}

/** Fast vault options on the emulator with a manual clock; `extra` overrides. */
function options(clock: ManualClock, extra: VaultOptions = {}): VaultOptions {
  return {
    keyDerivation: 'pbkdf2',
    iterations: 1000,
    autoLock: false,
    ...extra,
    config: {
      security: { enforceHttps: false },
      performance: { retryAttempts: 0 },
      ...extra.config,
    },
    clientOptions: { env: false, logger: silentLogger, clock, ...extra.clientOptions },
  };
}

async function makeClient(clock = new ManualClock(START), extra: VaultOptions = {}) {
  return ThreatClient.createVault(
    PASSWORD,
    { feed_otx: onEmulator('feed_otx', OTX), feed_abuse: onEmulator('feed_abuse', ABUSE) },
    options(clock, extra),
  );
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('ThreatClient.createVault', () => {
  it('returns the client, the vault and trojan (the same object as client)', async () => {
    const made = await makeClient();
    expect(made.trojan).toBe(made.client);
    expect(made.client.vault).toBe(made.vault);
    expect(made.vault.keys()).toEqual(['feed_abuse', 'feed_otx']);
    expect(made.client.sources).toEqual(['feed_otx', 'feed_abuse']);
    // The feed settings went to the configuration; the keys did not.
    expect(made.client.config.apiKeys.feed_otx).toEqual({ endpoint: emulator.endpoints.feed_otx, timeout: 2000 });
    expect(JSON.stringify(made.client.config)).not.toContain(OTX);
    expect(made.client.warnings.map((w) => w.code)).not.toContain('MISSING_API_KEY');
    expect(made.client.feedStatus().map((s) => [s.feed, s.configured])).toEqual([
      ['feed_otx', true],
      ['feed_abuse', true],
    ]);
  });

  it('sends each feed the key from the vault', async () => {
    const { client } = await makeClient();
    const result = await client.scout('198.51.100.20');
    // Unscripted indicators are unknown to the emulator: answered, not refused for want of a key.
    expect(result.results.map((r) => [r.feed, r.status])).toEqual([
      ['feed_otx', 'not_found'],
      ['feed_abuse', 'not_found'],
    ]);
    const otx = emulator.requests.find((r) => r.feed === 'feed_otx');
    const abuse = emulator.requests.find((r) => r.feed === 'feed_abuse');
    expect(otx?.headers['x-otx-api-key']).toBe(OTX);
    expect(abuse?.headers.key).toBe(ABUSE);
  });

  it('while locked, a lookup that needs a vault key rejects with VaultLockedError and sends nothing', async () => {
    // feed_urls needs no key: it must not be asked either, or a locked vault would give half an answer.
    const { client, vault } = await makeClient(new ManualClock(START), {
      config: {
        sources: ['feed_urls', 'feed_otx', 'feed_abuse'],
        apiKeys: { feed_urls: { endpoint: emulator.endpoints.feed_urls, timeout: 2000 } },
      },
    });
    vault.lock();
    const error = await caught(client.scout('198.51.100.21'));
    expect(VaultLockedError.isInstance(error)).toBe(true);
    expect((error as VaultLockedError).feeds).toEqual(['feed_otx', 'feed_abuse']);
    expect((error as Error).message).toMatch(/no request was sent/);
    expect(VaultLockedError.isInstance(await caught(client.correlate('198.51.100.21')))).toBe(true);
    const items = [];
    for await (const item of client.scoutMany(['198.51.100.22'])) items.push(item);
    expect(items).toEqual([
      { input: '198.51.100.22', ok: false, error: expect.objectContaining({ code: 'VAULT_LOCKED' }) },
    ]);
    expect(emulator.count()).toBe(0);
    // A warninglisted indicator needs no feed, hence no key.
    expect((await client.scout('10.1.2.3')).warninglist).toBeDefined();

    await vault.unlock(PASSWORD);
    await client.scout('198.51.100.21');
    expect(emulator.count()).toBe(3);
  });

  it('a feed whose key is not in the vault is still asked with the key from apiKeys', async () => {
    const clock = new ManualClock(START);
    const { client, vault } = await ThreatClient.createVault(
      PASSWORD,
      { feed_otx: onEmulator('feed_otx', OTX) },
      options(clock, {
        config: { sources: ['feed_otx', 'feed_abuse'], apiKeys: { feed_abuse: onEmulator('feed_abuse', ABUSE) } },
      }),
    );
    vault.lock();
    await vault.unlock(PASSWORD);
    await client.scout('198.51.100.23');
    expect(emulator.requests.find((r) => r.feed === 'feed_abuse')?.headers.key).toBe(ABUSE);
  });

  it('stop() locks the vault, zeroing the keys, and fires vaultLocked', async () => {
    const { client, vault } = await makeClient();
    const bytes = Buffer.from('a-key-given-as-bytes');
    vault.set('feed_cti', bytes);
    let locked = 0;
    client.on('vaultLocked', () => locked++);
    await client.start();
    await client.stop();
    expect(vault.isLocked).toBe(true);
    expect(locked).toBe(1);
    expect(bytes.every((b) => b === 0)).toBe(true);
  });
});

describe('auto-lock through the client', () => {
  it('fires vaultLocked after lockTimeout ms without use (ManualClock)', async () => {
    const clock = new ManualClock(START);
    const { client, vault } = await makeClient(clock, { autoLock: true, lockTimeout: 5000 });
    const fired: number[] = [];
    client.on('vaultLocked', () => fired.push(clock.now() - START));
    await clock.advance(3000);
    await client.scout('198.51.100.24');
    await clock.advance(4999);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect(fired).toEqual([8000]);
    expect(vault.isLocked).toBe(true);
    expect(VaultLockedError.isInstance(await caught(client.scout('198.51.100.24')))).toBe(true);
  });

  it('fires vaultLocked after 200 real milliseconds', async () => {
    const started = performance.now();
    const { client, vault } = await ThreatClient.createVault(
      PASSWORD,
      { feed_otx: OTX },
      {
        keyDerivation: 'pbkdf2',
        iterations: 1000,
        autoLock: true,
        lockTimeout: 200,
        clientOptions: { env: false, logger: silentLogger },
      },
    );
    const elapsed = await new Promise<number>((resolve) =>
      client.once('vaultLocked', () => resolve(performance.now() - started)),
    );
    expect(vault.isLocked).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(195);
    expect(elapsed).toBeLessThan(2000);
  });

  it('THREATLIB_AUTO_LOCK and THREATLIB_LOCK_TIMEOUT drive the vault', async () => {
    const on = new ManualClock(START);
    const a = await makeClient(on, {
      autoLock: undefined,
      clientOptions: {
        env: { THREATLIB_AUTO_LOCK: 'true', THREATLIB_LOCK_TIMEOUT: '1500' },
        clock: on,
        logger: silentLogger,
      },
    });
    expect(a.client.config.security).toMatchObject({ autoLock: true, lockTimeout: 1500 });
    await on.advance(1499);
    expect(a.vault.isLocked).toBe(false);
    await on.advance(1);
    expect(a.vault.isLocked).toBe(true);

    const off = new ManualClock(START);
    const b = await makeClient(off, {
      autoLock: undefined,
      clientOptions: {
        env: { THREATLIB_AUTO_LOCK: 'false', THREATLIB_LOCK_TIMEOUT: '1500' },
        clock: off,
        logger: silentLogger,
      },
    });
    await off.advance(30 * 86_400_000);
    expect(b.vault.isLocked).toBe(false);

    // An explicit option beats the environment.
    const explicit = new ManualClock(START);
    const c = await makeClient(explicit, {
      autoLock: true,
      lockTimeout: 100,
      clientOptions: {
        env: { THREATLIB_AUTO_LOCK: 'false', THREATLIB_LOCK_TIMEOUT: '1500' },
        clock: explicit,
        logger: silentLogger,
      },
    });
    await explicit.advance(100);
    expect(c.vault.isLocked).toBe(true);
  });

  it('a malformed THREATLIB_LOCK_TIMEOUT is refused before any vault is made', async () => {
    const error = await caught(
      makeClient(new ManualClock(START), {
        clientOptions: { env: { THREATLIB_LOCK_TIMEOUT: 'soon' }, logger: silentLogger },
      }),
    );
    expect((error as Error).message).toMatch(/THREATLIB_LOCK_TIMEOUT: expected a whole number of milliseconds/);
  });
});

describe('ThreatClient.openVault', () => {
  it('reopens a saved vault; sources default to the built-in feeds it holds', async () => {
    const path = join(dir, 'keys.vault');
    const made = await makeClient();
    made.vault.set('feed_custom', 'a key for a third-party feed');
    await made.vault.save(path);
    const clock = new ManualClock(START);
    const opened = await ThreatClient.openVault(path, PASSWORD, {
      ...options(clock),
      config: {
        security: { enforceHttps: false },
        apiKeys: { feed_otx: onEmulator('feed_otx'), feed_abuse: onEmulator('feed_abuse') },
      },
    });
    expect(opened.trojan).toBe(opened.client);
    expect(opened.client.sources).toEqual(['feed_abuse', 'feed_otx']);
    expect(opened.vault.path).toBe(path);
    expect(opened.vault.get('feed_custom')).toBe('a key for a third-party feed');
    await opened.client.scout('198.51.100.25');
    expect(emulator.requests.find((r) => r.feed === 'feed_otx')?.headers['x-otx-api-key']).toBe(OTX);
  });

  it('a wrong password or a damaged file rejects, and leaves the file as it was', async () => {
    const path = join(dir, 'keys.vault');
    await (await makeClient()).vault.save(path);
    const bytes = await readFile(path);
    expect(
      VaultAuthError.isInstance(await caught(ThreatClient.openVault(path, 'nope', options(new ManualClock())))),
    ).toBe(true);
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 10] = (damaged[damaged.length - 10] as number) ^ 0x01;
    await writeFile(path, damaged);
    expect(
      VaultCorruptError.isInstance(await caught(ThreatClient.openVault(path, PASSWORD, options(new ManualClock())))),
    ).toBe(true);
    expect(await readFile(path)).toEqual(damaged);
  });

  it('a vault with no built-in feed and no sources is a configuration error, and the vault is locked again', async () => {
    const path = join(dir, 'keys.vault');
    const made = await ThreatClient.createVault(
      PASSWORD,
      { feed_custom: 'k' },
      {
        ...options(new ManualClock()),
        config: { sources: ['feed_urls'] } as Partial<ThreatConfig>,
      },
    );
    await made.vault.save(path);
    await expect(ThreatClient.openVault(path, PASSWORD, options(new ManualClock()))).rejects.toThrow(
      /Configuration invalid: sources: list at least one feed/,
    );
  });
});

describe('audit events', () => {
  it('with enableAuditLog: vault actions, key use by feed and run-time option changes, never a secret', async () => {
    const clock = new ManualClock(START);
    const events: AuditEvent[] = [];
    const { client, vault } = await makeClient(clock, {
      enableAuditLog: true,
      config: { events: { audit: (event) => void events.push(event) } },
    });
    await client.scout('198.51.100.26');
    client.updateConcurrency(5);
    vault.lock();
    await caught(vault.unlock('wrong'));
    await vault.unlock(PASSWORD);
    await vault.rotate();
    expect(events.map((e) => [e.action, e.feed ?? e.option ?? e.reason ?? ''])).toEqual([
      ['vault_created', ''],
      ['key_used', 'feed_otx'],
      ['key_used', 'feed_abuse'],
      ['config_changed', 'performance.maxConcurrency'],
      ['vault_locked', 'manual'],
      ['vault_unlock_failed', 'VAULT_AUTH_FAILED'],
      ['vault_unlocked', ''],
      ['vault_rotated', ''],
    ]);
    expect(events[0]).toMatchObject({
      at: new Date(START).toISOString(),
      detail: { feeds: ['feed_abuse', 'feed_otx'], kdf: 'pbkdf2' },
    });
    expect(JSON.stringify(events)).not.toMatch(new RegExp(`${OTX}|${ABUSE}|${PASSWORD}|wrong`));
  });

  it('without enableAuditLog nothing is emitted', async () => {
    const events: AuditEvent[] = [];
    const { client, vault } = await makeClient();
    client.on('audit', (event) => events.push(event));
    await client.scout('198.51.100.27');
    vault.lock();
    expect(events).toEqual([]);
  });
});
