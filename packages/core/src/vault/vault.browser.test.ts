// The vault in a page (issue 24, point 5): the same envelope as in Node.js, AES-256-GCM from WebCrypto, Argon2id in a
// Web Worker so the page stays responsive, and auto-lock on the page's own timers. A vault crosses between Node.js
// and the page both ways: the `nodeVault` command (node-vault-command.test-suite.ts) runs ThreatClient.createVault and
// openVault in a Node.js process of its own.
/// <reference path="../../../../e2e/browser/browser-commands.d.ts" />
import { describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import { utf8Bytes, utf8Text } from '../bytes/host-bytes.js';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { silentLogger } from '../logging/logger.js';
import { systemClock } from '../scheduler/clock.js';
import { argon2idImplementation } from './argon2id.js';
import type { VaultEnvelope } from './envelope.js';
import { type LockReason, Vault, type VaultSettings } from './vault.js';
import { VaultAuthError } from './vault-auth-error.js';

declare module 'vitest/browser' {
  interface BrowserCommands {
    /** Has Node.js make a vault, or open the page's (vitest.browser.config.ts). */
    nodeVault(
      request:
        | { mode: 'create'; password: string; keys: Record<string, string> }
        | { mode: 'open'; password: string; file: string },
    ): Promise<{ file: string; kdf: Record<string, unknown>; keys: Record<string, string> }>;
  }
}

const PASSWORD = 'a page password, not a secret';
const KEYS = { feed_otx: 'otx-key-made-in-a-page-0123456789', feed_abuse: 'abuse-key-made-in-a-page-9876543210' };
const DEFAULT_KDF = { algorithm: 'argon2id', version: 19, memory: 65_536, passes: 3, parallelism: 4 };

/** The settings ThreatClient.createVault resolves from its defaults, on the page's real clock. */
function settings(overrides: Partial<VaultSettings> = {}): VaultSettings {
  return {
    keyDerivation: 'argon2id',
    iterations: 600_000,
    saltSize: 32,
    tagSize: 16,
    autoLock: false,
    lockTimeout: 300_000,
    rotationEnabled: false,
    rotationInterval: 86_400_000,
    secureErase: true,
    obfuscateKeys: false,
    preventDumps: false,
    clock: systemClock,
    logger: silentLogger,
    ...overrides,
  };
}

/** Counts the page's timer turns while `work` runs: a main thread that is blocked counts none. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    ticks += 1;
    setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  try {
    return { result: await work(), ticks };
  } finally {
    running = false;
  }
}

describe('a vault in a page', () => {
  it('is made with the default argon2id in a Web Worker while the page keeps running, and reopens', async () => {
    expect(typeof (globalThis as { Buffer?: unknown }).Buffer).toBe('undefined');
    expect(argon2idImplementation().name).toBe('worker');
    const { result: vault, ticks } = await ticksDuring(() => Vault.create(PASSWORD, KEYS, settings()));
    // Argon2id with 64 MiB and 3 passes takes the better part of a second; the main thread turned all along.
    expect(ticks).toBeGreaterThan(20);
    // The worker started: a failed one would have switched the page to the main-thread fallback for good.
    expect(argon2idImplementation().name).toBe('worker');

    const bytes = vault.toBytes();
    expect(bytes).toBeInstanceOf(Uint8Array);
    const envelope = JSON.parse(utf8Text(bytes)) as VaultEnvelope;
    expect(envelope).toMatchObject({
      format: 'threatlib-vault',
      version: 1,
      cipher: { algorithm: 'aes-256-gcm', tagLength: 16 },
      kdf: DEFAULT_KDF,
    });
    const text = utf8Text(bytes);
    for (const key of Object.values(KEYS)) expect(text).not.toContain(key);

    const reopened = await Vault.fromBytes(bytes, PASSWORD, settings());
    expect(reopened.keys()).toEqual(['feed_abuse', 'feed_otx']);
    expect(reopened.get('feed_otx')).toBe(KEYS.feed_otx);
    await expect(Vault.fromBytes(bytes, `${PASSWORD}!`, settings())).rejects.toSatisfy(VaultAuthError.isInstance);
  }, 60_000);

  it('set and delete re-encrypt in the background; sealed() waits for it, and a lock does not stop it', async () => {
    const vault = await Vault.create(PASSWORD, KEYS, settings({ keyDerivation: 'pbkdf2', iterations: 1000 }));
    vault.set('feed_scan', 'vt-key-set-in-the-page');
    vault.delete('feed_abuse');
    vault.lock();
    await vault.sealed();
    const reopened = await Vault.fromBytes(vault.toBytes(), PASSWORD, settings());
    expect(reopened.keys()).toEqual(['feed_otx', 'feed_scan']);
    expect(reopened.get('feed_scan')).toBe('vt-key-set-in-the-page');
  });

  it('made in Node.js (crypto.argon2), it opens in the page; made in the page, it opens in Node.js', async () => {
    const fromNode = await commands.nodeVault({ mode: 'create', password: PASSWORD, keys: KEYS });
    expect(fromNode.kdf).toEqual(DEFAULT_KDF);
    const opened = await Vault.fromBytes(utf8Bytes(fromNode.file), PASSWORD, settings());
    expect(Object.fromEntries(opened.keys().map((feed) => [feed, opened.get(feed)]))).toEqual(KEYS);
    await expect(Vault.fromBytes(utf8Bytes(fromNode.file), 'wrong', settings())).rejects.toSatisfy(
      VaultAuthError.isInstance,
    );

    const made = await Vault.create(PASSWORD, { feed_cti: 'cti-key-made-in-the-page' }, settings());
    const inNode = await commands.nodeVault({ mode: 'open', password: PASSWORD, file: utf8Text(made.toBytes()) });
    expect(inNode).toMatchObject({ kdf: DEFAULT_KDF, keys: { feed_cti: 'cti-key-made-in-the-page' } });
  }, 120_000);

  it('autoLock: locks itself after lockTimeout on the page timers, and says why', async () => {
    const vault = await Vault.create(
      PASSWORD,
      KEYS,
      settings({ keyDerivation: 'pbkdf2', iterations: 1000, autoLock: true, lockTimeout: 150 }),
    );
    const locked = new Promise<LockReason>((resolve) => vault.events.on('locked', resolve));
    expect(vault.get('feed_otx')).toBe(KEYS.feed_otx);
    expect(await locked).toBe('timeout');
    expect(vault.isLocked).toBe(true);
    expect(() => vault.get('feed_otx')).toThrow(/locked/);
    await vault.unlock(PASSWORD);
    expect(vault.get('feed_otx')).toBe(KEYS.feed_otx);
    vault.lock();
  });

  it('refuses vault files, which need Node.js, with an error saying what to do instead (storage, or toBytes)', async () => {
    const vault = await Vault.create(PASSWORD, KEYS, settings({ keyDerivation: 'pbkdf2', iterations: 1000 }));
    const saving = await vault.save('keys.vault').catch((error: unknown) => error);
    expect(RuntimeUnsupportedError.isInstance(saving)).toBe(true);
    expect((saving as Error).message).toMatch(
      /vault files need Node\.js: in a page, give .*`storage`.*toBytes\(\).*Vault\.fromBytes/,
    );
    const opening = await Vault.open('keys.vault', PASSWORD, settings()).catch((error: unknown) => error);
    expect(RuntimeUnsupportedError.isInstance(opening)).toBe(true);
  });
});
