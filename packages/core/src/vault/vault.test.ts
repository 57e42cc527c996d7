import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../events/audit-event.js';
import { silentLogger } from '../logging/logger.js';
import { type Clock, ManualClock, systemClock, type TimerOptions } from '../scheduler/clock.js';
import { serializeEnvelope, type VaultEnvelope, withChecksum } from './envelope.js';
import { Vault, type VaultSettings } from './vault.js';
import { VaultAuthError } from './vault-auth-error.js';
import { VaultCorruptError } from './vault-corrupt-error.js';
import { VaultLockedError } from './vault-locked-error.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const PASSWORD = 'correct horse battery staple';
const OTX = 'otx-3f9a1c7e5b2d4e6f8a0b1c2d3e4f5a6b';
const VT = 'vt-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-vault-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Fast settings (PBKDF2 at its minimum) unless a test is about the KDF. */
function settings(overrides: Partial<VaultSettings> = {}): VaultSettings {
  return {
    keyDerivation: 'pbkdf2',
    iterations: 1000,
    saltSize: 32,
    tagSize: 16,
    autoLock: false,
    lockTimeout: 300_000,
    rotationEnabled: false,
    rotationInterval: 86_400_000,
    secureErase: true,
    obfuscateKeys: false,
    preventDumps: false,
    clock: new ManualClock(START),
    logger: silentLogger,
    ...overrides,
  };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

async function savedVault(overrides: Partial<VaultSettings> = {}, keys: Record<string, string> = { feed_otx: OTX }) {
  const path = join(dir, 'keys.vault');
  const vault = await Vault.create(PASSWORD, keys, settings(overrides));
  await vault.save(path);
  return { path, vault, bytes: await readFile(path) };
}

/** Rewrites a saved vault as an attacker who knows the format would: change a field, fix the checksum. */
async function tamper(path: string, change: (envelope: VaultEnvelope) => void): Promise<void> {
  const envelope = JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope;
  change(envelope);
  await writeFile(path, serializeEnvelope(withChecksum(envelope)));
}

function flipBase64(text: string, at = 0): string {
  const bytes = Buffer.from(text, 'base64');
  bytes[at] = (bytes[at] as number) ^ 0x01;
  return bytes.toString('base64');
}

describe('round trip', () => {
  it('argon2id with the default parameters: saved, reopened with the password, same keys', async () => {
    const { path, vault } = await savedVault({ keyDerivation: 'argon2id' }, { feed_otx: OTX, feed_scan: VT });
    const envelope = JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope;
    expect(envelope).toMatchObject({
      format: 'threatlib-vault',
      version: 1,
      cipher: { algorithm: 'aes-256-gcm', tagLength: 16 },
      kdf: { algorithm: 'argon2id', version: 19, memory: 65_536, passes: 3, parallelism: 4 },
    });
    expect(Buffer.from(envelope.kdf.salt, 'base64')).toHaveLength(32);
    expect(Buffer.from(envelope.cipher.nonce, 'base64')).toHaveLength(12);
    expect(vault.keys()).toEqual(['feed_otx', 'feed_scan']);

    const reopened = await Vault.open(path, PASSWORD, settings());
    expect(reopened.get('feed_otx')).toBe(OTX);
    expect(reopened.get('feed_scan')).toBe(VT);
    expect(reopened.get('feed_cti')).toBeUndefined();
    expect(reopened.kdf).toMatchObject({ algorithm: 'argon2id', memory: 65_536 });
  });

  it('opens with the parameters recorded in the file, whatever the settings say now', async () => {
    const { path } = await savedVault({ keyDerivation: 'pbkdf2', iterations: 1234, saltSize: 16, tagSize: 12 });
    const reopened = await Vault.open(
      path,
      PASSWORD,
      settings({ keyDerivation: 'argon2id', saltSize: 64, tagSize: 16 }),
    );
    expect(reopened.get('feed_otx')).toBe(OTX);
    expect(reopened.kdf).toEqual({ algorithm: 'pbkdf2', hash: 'sha256', iterations: 1234 });
    const envelope = JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope;
    expect(Buffer.from(envelope.kdf.salt, 'base64')).toHaveLength(16);
    expect(envelope.cipher.tagLength).toBe(12);
  });

  it('two vaults of the same keys and password share no salt, nonce or ciphertext', async () => {
    const a = JSON.parse((await Vault.create(PASSWORD, { feed_otx: OTX }, settings())).toBytes().toString());
    const b = JSON.parse((await Vault.create(PASSWORD, { feed_otx: OTX }, settings())).toBytes().toString());
    expect(a.kdf.salt).not.toBe(b.kdf.salt);
    expect(a.cipher.nonce).not.toBe(b.cipher.nonce);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('the file holds no key in any encoding a grep would find', async () => {
    const { bytes } = await savedVault({}, { feed_otx: OTX, feed_scan: VT });
    const text = bytes.toString('utf8');
    for (const secret of [OTX, VT, PASSWORD]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(secret).toString('base64'));
      expect(text).not.toContain(Buffer.from(secret).toString('hex'));
    }
  });
});

describe('wrong password and damage', () => {
  it('a wrong password is a VaultAuthError and the file is untouched', async () => {
    const { path, bytes } = await savedVault();
    const before = await stat(path);
    const error = await caught(Vault.open(path, 'Correct horse battery staple', settings()));
    expect(VaultAuthError.isInstance(error)).toBe(true);
    expect((error as VaultAuthError).path).toBe(path);
    expect((error as Error).message).toMatch(/wrong password/);
    expect(await readFile(path)).toEqual(bytes);
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
  });

  it('flipping any single byte of a saved vault is a VaultCorruptError, and the file stays as it was', async () => {
    const { path, bytes } = await savedVault({ saltSize: 16 }, { feed_otx: 'k' });
    const fields = new Set<string>();
    for (let i = 0; i < bytes.length; i++) {
      const damaged = Buffer.from(bytes);
      damaged[i] = (damaged[i] as number) ^ 0x01;
      await writeFile(path, damaged);
      const error = await caught(Vault.open(path, PASSWORD, settings()));
      if (!VaultCorruptError.isInstance(error)) throw new Error(`byte ${i}: got ${String(error)}`);
      fields.add(error.field);
      expect((await readFile(path)).equals(damaged)).toBe(true);
    }
    // Other flips of every byte, in memory: high bit (not UTF-8 any more) and all bits.
    for (let i = 0; i < bytes.length; i++) {
      for (const mask of [0x80, 0xff]) {
        const damaged = Buffer.from(bytes);
        damaged[i] = (damaged[i] as number) ^ mask;
        const error = await caught(Vault.fromBytes(damaged, PASSWORD, settings()));
        if (!VaultCorruptError.isInstance(error)) throw new Error(`byte ${i} ^ ${mask}: got ${String(error)}`);
      }
    }
    expect(bytes.length).toBeGreaterThan(400);
    expect([...fields]).toEqual(expect.arrayContaining(['checksum', 'json', 'kdf.salt', 'ciphertext']));
  }, 30_000);

  it('the same content laid out differently (a JSON-equivalent edit) is refused too', async () => {
    const { path, bytes } = await savedVault();
    await writeFile(path, JSON.stringify(JSON.parse(bytes.toString())));
    expect(await caught(Vault.open(path, PASSWORD, settings()))).toMatchObject({
      code: 'VAULT_CORRUPT',
      field: 'layout',
    });
  });

  describe('deliberate tampering (the checksum recomputed)', () => {
    type Change = (envelope: VaultEnvelope) => void;
    it.each<[string, string, Change]>([
      [
        'a ciphertext byte',
        'ciphertext',
        (e) => {
          e.ciphertext = flipBase64(e.ciphertext, 3);
        },
      ],
      [
        'the GCM tag',
        'ciphertext',
        (e) => {
          e.ciphertext = flipBase64(e.ciphertext, 70);
        },
      ],
      [
        'the nonce',
        'ciphertext',
        (e) => {
          e.cipher.nonce = flipBase64(e.cipher.nonce);
        },
      ],
      [
        'rotatedAt (authenticated header)',
        'ciphertext',
        (e) => {
          e.rotatedAt = '2027-01-01T00:00:00.000Z';
        },
      ],
      [
        'the tag length (authenticated header)',
        'ciphertext',
        (e) => {
          e.cipher.tagLength = 15;
        },
      ],
      [
        'the key-check value',
        'keyCheck',
        (e) => {
          e.keyCheck = flipBase64(e.keyCheck);
        },
      ],
      [
        'an unsupported version',
        'version',
        (e) => {
          (e as { version: number }).version = 2;
        },
      ],
      [
        'absurd KDF memory',
        'kdf',
        (e) => {
          e.kdf = {
            algorithm: 'argon2id',
            version: 19,
            memory: 2 ** 30,
            passes: 3,
            parallelism: 4,
            salt: e.kdf.salt,
          };
        },
      ],
    ])('%s: VaultCorruptError naming %s', async (_what, field, change) => {
      const { path } = await savedVault();
      await tamper(path, change);
      const before = await readFile(path);
      const error = await caught(Vault.open(path, PASSWORD, settings()));
      expect(VaultCorruptError.isInstance(error)).toBe(true);
      expect((error as VaultCorruptError).field).toBe(field);
      expect(await readFile(path)).toEqual(before);
    });

    it.each<[string, Change]>([
      [
        'the salt',
        (e) => {
          e.kdf.salt = flipBase64(e.kdf.salt);
        },
      ],
      ['the iteration count', (e) => void Object.assign(e.kdf, { iterations: 1001 })],
    ])(
      '%s: VaultAuthError, since a changed salt or cost cannot be told from a wrong password',
      async (_what, change) => {
        const { path } = await savedVault();
        await tamper(path, change);
        expect(VaultAuthError.isInstance(await caught(Vault.open(path, PASSWORD, settings())))).toBe(true);
      },
    );
  });

  it('refuses what is not a vault, naming why', async () => {
    const path = join(dir, 'other.json');
    await writeFile(path, '{"hello":"world"}\n');
    expect(await caught(Vault.open(path, PASSWORD, settings()))).toMatchObject({ code: 'VAULT_CORRUPT' });
    await writeFile(path, Buffer.from([0xff, 0xfe, 0x00]));
    expect(await caught(Vault.open(path, PASSWORD, settings()))).toMatchObject({ field: 'encoding' });
  });
});

describe('saving', () => {
  it('writes mode 0600, replacing a wider file, and leaves no temporary file behind', async () => {
    const path = join(dir, 'keys.vault');
    await writeFile(path, 'old', { mode: 0o644 });
    const vault = await Vault.create(PASSWORD, { feed_otx: OTX }, settings());
    await vault.save(path);
    if (process.platform !== 'win32') expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['keys.vault']);
    expect(await readFile(path)).toEqual(vault.toBytes());
    expect(vault.path).toBe(path);
  });

  it('a failed save leaves the target as it was and no temporary file', async () => {
    const vault = await Vault.create(PASSWORD, { feed_otx: OTX }, settings());
    const error = await caught(vault.save(join(dir, 'missing-directory', 'keys.vault')));
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(await readdir(dir)).toEqual([]);
  });

  it('needs a path when the vault has none', async () => {
    const vault = await Vault.create(PASSWORD, {}, settings());
    expect(await caught(vault.save())).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('saves while locked (the ciphertext is always current), including keys set before the lock', async () => {
    const { path, vault } = await savedVault();
    vault.set('feed_scan', VT);
    vault.lock();
    await vault.save();
    const reopened = await Vault.open(path, PASSWORD, settings());
    expect(reopened.keys()).toEqual(['feed_otx', 'feed_scan']);
    expect(reopened.get('feed_scan')).toBe(VT);
  });
});

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
