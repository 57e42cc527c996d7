// The vault file: a round trip, a wrong password, damage and tampering, and how it is saved.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VaultEnvelope } from './envelope.js';
import {
  caught,
  dir,
  flipBase64,
  freshDirPerTest,
  OTX,
  PASSWORD,
  savedVault,
  settings,
  tamper,
  VT,
} from './saved-vaults.test-suite.js';
import { Vault } from './vault.js';
import { VaultAuthError } from './vault-auth-error.js';
import { VaultCorruptError } from './vault-corrupt-error.js';

freshDirPerTest();

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
