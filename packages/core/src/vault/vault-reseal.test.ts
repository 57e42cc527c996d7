// set() and delete() re-encrypt in the background (WebCrypto is asynchronous): a change made while a rotation is
// deriving its new key is kept, and the vault still opens with its password.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logging/logger.js';
import { systemClock } from '../scheduler/clock.js';
import { forceArgon2idImplementation, nativeArgon2id } from './argon2id.js';
import { Vault, type VaultSettings } from './vault.js';

const PASSWORD = 'a test password';

function settings(): VaultSettings {
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
  };
}

afterEach(() => forceArgon2idImplementation(undefined));

describe('background re-encryption', () => {
  it.skipIf(!nativeArgon2id())('keeps a key set while a rotation derives its new key', async () => {
    const native = nativeArgon2id();
    if (!native) return;
    let hold = false;
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    forceArgon2idImplementation({
      name: 'native',
      derive: async (input) => {
        if (hold) await gate;
        return native.derive(input);
      },
    });
    const vault = await Vault.create(PASSWORD, { feed_otx: 'otx-key' }, settings());
    hold = true;
    const rotating = vault.rotate();
    await new Promise((resolve) => setTimeout(resolve, 20));
    vault.set('feed_scan', 'set-during-rotation');
    vault.delete('feed_otx');
    release();
    await rotating;
    await vault.sealed();
    hold = false;
    const reopened = await Vault.fromBytes(vault.toBytes(), PASSWORD, settings());
    expect(reopened.keys()).toEqual(['feed_scan']);
    expect(reopened.get('feed_scan')).toBe('set-during-rotation');
    expect(reopened.rotatedAt).toBe(vault.rotatedAt);
  });

  it('sealed() resolves with every change in toBytes(), also after a lock', async () => {
    const vault = await Vault.create(
      PASSWORD,
      { feed_otx: 'otx-key' },
      { ...settings(), keyDerivation: 'pbkdf2', iterations: 1000 },
    );
    const before = vault.toBytes();
    vault.set('feed_scan', 'vt-key');
    vault.lock();
    await vault.sealed();
    expect(vault.toBytes()).not.toEqual(before);
    const reopened = await Vault.fromBytes(vault.toBytes(), PASSWORD, settings());
    expect(reopened.get('feed_scan')).toBe('vt-key');
  });
});
