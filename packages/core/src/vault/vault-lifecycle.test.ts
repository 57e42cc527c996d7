// An open vault: lock, unlock, get and set, preventDumps, auto-lock and key rotation.
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../events/audit-event.js';
import { type Clock, ManualClock, systemClock, type TimerOptions } from '../scheduler/clock.js';
import type { VaultEnvelope } from './envelope.js';
import {
  caught,
  dir,
  freshDirPerTest,
  OTX,
  PASSWORD,
  START,
  savedVault,
  settings,
  VT,
} from './saved-vaults.test-suite.js';
import { Vault } from './vault.js';
import { VaultAuthError } from './vault-auth-error.js';
import { VaultLockedError } from './vault-locked-error.js';

freshDirPerTest();

describe('lock, unlock, get, set', () => {
  it('while locked: get, set and delete throw VaultLockedError; keys() still names the feeds', async () => {
    const vault = await Vault.create(PASSWORD, { feed_otx: OTX }, settings());
    vault.lock();
    expect(vault.isLocked).toBe(true);
    expect(() => vault.get('feed_otx')).toThrow(VaultLockedError);
    expect(() => vault.set('feed_scan', VT)).toThrow(/locked/);
    expect(() => vault.delete('feed_otx')).toThrow(/locked/);
    expect(await caught(vault.rotate())).toBeInstanceOf(VaultLockedError);
    expect(vault.keys()).toEqual(['feed_otx']);
    expect(vault.has('feed_otx')).toBe(true);
  });

  it('unlock with a wrong password fails and stays locked; with the right one the keys are back', async () => {
    const vault = await Vault.create(PASSWORD, { feed_otx: OTX }, settings());
    const audit: AuditEvent[] = [];
    vault.events.on('audit', (event) => audit.push(event));
    vault.lock();
    expect(VaultAuthError.isInstance(await caught(vault.unlock('wrong')))).toBe(true);
    expect(vault.isLocked).toBe(true);
    await vault.unlock(PASSWORD);
    expect(vault.get('feed_otx')).toBe(OTX);
    expect(audit.map((e) => e.action)).toEqual(['vault_locked', 'vault_unlock_failed', 'vault_unlocked', 'key_used']);
    expect(audit[1]).toMatchObject({ reason: 'VAULT_AUTH_FAILED' });
  });

  it('unlock on an unlocked vault still refuses a wrong password', async () => {
    const vault = await Vault.create(PASSWORD, { feed_otx: OTX }, settings());
    expect(VaultAuthError.isInstance(await caught(vault.unlock('wrong')))).toBe(true);
    expect(vault.isLocked).toBe(false);
    await vault.unlock(PASSWORD);
    expect(vault.get('feed_otx')).toBe(OTX);
  });

  it('set and delete change the keys, and refuse bad feed ids and empty keys', async () => {
    const vault = await Vault.create(PASSWORD, { feed_otx: OTX }, settings());
    vault.set('feed_scan', VT);
    vault.set('feed_otx', 'otx-replaced');
    expect(vault.get('feed_otx')).toBe('otx-replaced');
    expect(vault.delete('feed_scan')).toBe(true);
    expect(vault.delete('feed_scan')).toBe(false);
    expect(vault.keys()).toEqual(['feed_otx']);
    expect(() => vault.set('Feed OTX', 'x')).toThrow(/lower-case/);
    expect(() => vault.set('feed_otx', '')).toThrow(/non-empty key/);
    await expect(Vault.create('', {}, settings())).rejects.toThrow(/password/);
  });

  it('secureErase: a key given as bytes is zeroed on lock', async () => {
    const bytes = Buffer.from(VT);
    const vault = await Vault.create(PASSWORD, {}, settings({ secureErase: true }));
    vault.set('feed_scan', bytes);
    expect(bytes.toString()).toBe(VT);
    vault.lock();
    expect(bytes.every((b) => b === 0)).toBe(true);
  });

  it('without secureErase the bytes are dropped, not zeroed', async () => {
    const bytes = Buffer.from(VT);
    const vault = await Vault.create(PASSWORD, {}, settings({ secureErase: false }));
    vault.set('feed_scan', bytes);
    vault.lock();
    expect(bytes.toString()).toBe(VT);
  });

  it('obfuscateKeys: the bytes held are masked, and the key is unmasked only when read', async () => {
    const bytes = Buffer.from(VT);
    const vault = await Vault.create(PASSWORD, {}, settings({ obfuscateKeys: true }));
    vault.set('feed_scan', bytes);
    expect(bytes.toString()).not.toBe(VT);
    expect(bytes.includes(Buffer.from(VT.slice(0, 8)))).toBe(false);
    expect(vault.get('feed_scan')).toBe(VT);
    vault.lock();
    expect(bytes.every((b) => b === 0)).toBe(true);
  });
});

describe('preventDumps', () => {
  it('keeps the environment out of diagnostic reports once a vault asks for it', async () => {
    const report = process.report as NodeJS.ProcessReport & { excludeEnv: boolean };
    const before = report.excludeEnv;
    report.excludeEnv = false;
    try {
      await Vault.create(PASSWORD, {}, settings({ preventDumps: false }));
      expect(report.excludeEnv).toBe(false);
      await Vault.create(PASSWORD, {}, settings({ preventDumps: true }));
      expect(report.excludeEnv).toBe(true);
    } finally {
      report.excludeEnv = before;
    }
  });
});

describe('auto-lock', () => {
  it('locks after lockTimeout ms without a get, each get starting the wait again', async () => {
    const clock = new ManualClock(START);
    const vault = await Vault.create(
      PASSWORD,
      { feed_otx: OTX },
      settings({ clock, autoLock: true, lockTimeout: 1000 }),
    );
    const reasons: string[] = [];
    vault.events.on('locked', (reason) => reasons.push(reason));
    await clock.advance(600);
    expect(vault.get('feed_otx')).toBe(OTX);
    await clock.advance(999);
    expect(vault.isLocked).toBe(false);
    await clock.advance(1);
    expect(vault.isLocked).toBe(true);
    expect(reasons).toEqual(['timeout']);
    expect(clock.pending).toBe(0);
  });

  it('no lock timer without autoLock', async () => {
    const clock = new ManualClock(START);
    const vault = await Vault.create(PASSWORD, { feed_otx: OTX }, settings({ clock, autoLock: false }));
    await clock.advance(10 * 86_400_000);
    expect(vault.isLocked).toBe(false);
  });

  it("asks the clock for unref'd timers, and unrefs a real one even through a clock that ignores the option", async () => {
    const asked: Array<TimerOptions | undefined> = [];
    const handles: NodeJS.Timeout[] = [];
    const forgetful: Clock = {
      now: () => Date.now(),
      setTimeout(callback, ms, options) {
        asked.push(options);
        const handle = systemClock.setTimeout(callback, ms) as NodeJS.Timeout;
        handles.push(handle);
        return handle;
      },
      clearTimeout: (handle) => systemClock.clearTimeout(handle),
    };
    const vault = await Vault.create(
      PASSWORD,
      { feed_otx: OTX },
      settings({ clock: forgetful, autoLock: true, lockTimeout: 60_000, rotationEnabled: true }),
    );
    expect(asked).toEqual([{ unref: true }, { unref: true }]);
    expect(handles.map((h) => h.hasRef())).toEqual([false, false]);
    vault.lock();
  });
});

describe('rotation', () => {
  it('rotate(): a fresh salt, nonce and ciphertext, the same keys, saved atomically to its path', async () => {
    const clock = new ManualClock(START);
    const { path, vault, bytes } = await savedVault({ clock });
    const before = JSON.parse(bytes.toString()) as VaultEnvelope;
    await clock.advance(5000);
    await vault.rotate();
    const after = JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope;
    expect(after.kdf.salt).not.toBe(before.kdf.salt);
    expect(after.cipher.nonce).not.toBe(before.cipher.nonce);
    expect(after.keyCheck).not.toBe(before.keyCheck);
    expect(after.rotatedAt).toBe(new Date(START + 5000).toISOString());
    expect(after.kdf).toMatchObject({ algorithm: 'pbkdf2', iterations: 1000 });
    expect(vault.get('feed_otx')).toBe(OTX);
    expect((await Vault.open(path, PASSWORD, settings())).get('feed_otx')).toBe(OTX);
    expect(await readdir(dir)).toEqual(['keys.vault']);
  });

  it('every rotationInterval: onRotate gets the feed ids and the keys it returns are stored and saved', async () => {
    const clock = new ManualClock(START);
    const calls: string[][] = [];
    const { path, vault } = await savedVault({
      clock,
      rotationEnabled: true,
      rotationInterval: 10_000,
      onRotate: ({ feeds }) => {
        calls.push([...feeds]);
        return { feed_otx: `otx-rotated-${calls.length}` };
      },
    });
    const rotated = new Promise<AuditEvent>((resolve) =>
      vault.events.on('audit', (e) => e.action === 'vault_saved' && resolve(e)),
    );
    await clock.advance(9999);
    expect(calls).toEqual([]);
    await clock.advance(1);
    await rotated;
    expect(calls).toEqual([['feed_otx']]);
    expect(vault.get('feed_otx')).toBe('otx-rotated-1');
    expect((await Vault.open(path, PASSWORD, settings())).get('feed_otx')).toBe('otx-rotated-1');
  });

  it('a rotation that fell due while locked runs after the next unlock', async () => {
    const clock = new ManualClock(START);
    const vault = await Vault.create(
      PASSWORD,
      { feed_otx: OTX },
      settings({ clock, rotationEnabled: true, rotationInterval: 10_000 }),
    );
    vault.lock();
    await clock.advance(60_000);
    expect(vault.rotatedAt).toBe(new Date(START).toISOString());
    const done = new Promise<void>((resolve) =>
      vault.events.on('audit', (e) => e.action === 'vault_rotated' && resolve()),
    );
    await vault.unlock(PASSWORD);
    await clock.advance(0);
    await done;
    expect(vault.rotatedAt).toBe(new Date(START + 60_000).toISOString());
  });

  it('a failing onRotate leaves the keys and the vault as they were, and reports the failure', async () => {
    const clock = new ManualClock(START);
    const vault = await Vault.create(
      PASSWORD,
      { feed_otx: OTX },
      settings({
        clock,
        rotationEnabled: true,
        rotationInterval: 10_000,
        onRotate: () => {
          throw new Error('vendor API down');
        },
      }),
    );
    const before = vault.toBytes();
    const failed = new Promise<unknown>((resolve) => vault.events.on('error', (error) => resolve(error)));
    await clock.advance(10_000);
    expect(((await failed) as Error).message).toBe('vendor API down');
    expect(vault.isLocked).toBe(false);
    expect(vault.get('feed_otx')).toBe(OTX);
    expect(vault.toBytes()).toEqual(before);
  });

  it('a vault locked while onRotate runs ends the rotation with VaultLockedError, nothing stored', async () => {
    let release: () => void = () => {};
    const vault = await Vault.create(
      PASSWORD,
      { feed_otx: OTX },
      settings({
        onRotate: () => new Promise((resolve) => (release = () => resolve({ feed_otx: 'should-not-be-kept' }))),
      }),
    );
    const rotation = vault.rotate();
    await new Promise((resolve) => setImmediate(resolve));
    vault.lock();
    release();
    expect(await caught(rotation)).toBeInstanceOf(VaultLockedError);
    await vault.unlock(PASSWORD);
    expect(vault.get('feed_otx')).toBe(OTX);
  });
});
