import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { silentLogger } from '../logging/logger.js';
import {
  type Argon2idImplementation,
  forceArgon2idImplementation,
  nativeArgon2id,
  portableArgon2id,
} from './argon2id.js';
import type { VaultEnvelope } from './envelope.js';
import { VaultAuthError } from './vault-auth-error.js';

// Made before the portable implementation existed, by `ThreatClient.createVault` with its default options on
// Node.js 24 (crypto.argon2). Its keys and password are made up for this test.
const NATIVE_FIXTURE = fileURLToPath(new URL('./__fixtures__/argon2id-native.vault', import.meta.url));
const FIXTURE_PASSWORD = 'fixture password: not a secret';
const FIXTURE_KEYS = { feed_otx: 'otx-fixture-key-0123456789abcdef', feed_scan: 'vt-fixture-key-fedcba9876543210' };

const native = nativeArgon2id();
const clientOptions = { env: false, logger: silentLogger } as const;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-vault-argon2id-'));
});
afterEach(async () => {
  forceArgon2idImplementation(undefined);
  await rm(dir, { recursive: true, force: true });
});

/** Makes vaults derive through `implementation`, and counts the derivations, so a test sees which path ran. */
function force(implementation: Argon2idImplementation | undefined): { derivations: number } {
  if (!implementation) throw new Error('this Node.js has no crypto.argon2 (Node.js 24.7 and later have it)');
  const counter = { derivations: 0 };
  forceArgon2idImplementation({
    name: implementation.name,
    derive: (input) => {
      counter.derivations += 1;
      return implementation.derive(input);
    },
  });
  return counter;
}

async function openedKeys(path: string, password: string): Promise<Record<string, string | undefined>> {
  const { client, vault } = await ThreatClient.openVault(path, password, { clientOptions });
  try {
    return Object.fromEntries(vault.keys().map((feed) => [feed, vault.get(feed)]));
  } finally {
    await client.stop();
  }
}

async function createdWithDefaults(path: string, password: string, keys: Record<string, string>): Promise<void> {
  const { client, vault } = await ThreatClient.createVault(password, keys, { path, clientOptions });
  await vault.save();
  await client.stop();
}

describe('a vault file does not depend on which Argon2id implementation made it', () => {
  it('a vault made on Node.js 24 with crypto.argon2 (before this change) opens on the portable implementation', async () => {
    const envelope = JSON.parse(await readFile(NATIVE_FIXTURE, 'utf8')) as VaultEnvelope;
    expect(envelope.kdf).toMatchObject({
      algorithm: 'argon2id',
      version: 19,
      memory: 65_536,
      passes: 3,
      parallelism: 4,
    });
    const path = join(dir, 'native.vault');
    await copyFile(NATIVE_FIXTURE, path);

    const portable = force(portableArgon2id);
    expect(await openedKeys(path, FIXTURE_PASSWORD)).toEqual(FIXTURE_KEYS);
    // The same derivation tells a wrong password apart, so the portable path is not just "opening anything".
    await expect(openedKeys(path, `${FIXTURE_PASSWORD}!`)).rejects.toBeInstanceOf(VaultAuthError);
    expect(portable.derivations).toBe(2);
  }, 60_000);

  it.skipIf(native === undefined)(
    'it still opens on crypto.argon2',
    async () => {
      const counter = force(native);
      expect(await openedKeys(NATIVE_FIXTURE, FIXTURE_PASSWORD)).toEqual(FIXTURE_KEYS);
      expect(counter.derivations).toBe(1);
    },
    60_000,
  );

  it.skipIf(native === undefined).each([
    { made: 'crypto.argon2', opened: 'the portable implementation', maker: native, opener: portableArgon2id },
    { made: 'the portable implementation', opened: 'crypto.argon2', maker: portableArgon2id, opener: native },
  ])(
    'made with default options on $made, it opens on $opened',
    async ({ maker, opener }) => {
      const path = join(dir, 'keys.vault');
      const keys = { feed_otx: 'otx-key-made-on-one-path', feed_abuse: 'abuse-key-made-on-one-path' };
      const making = force(maker);
      await createdWithDefaults(path, 'a password for both paths', keys);
      expect((JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope).kdf).toMatchObject({
        algorithm: 'argon2id',
        memory: 65_536,
        passes: 3,
        parallelism: 4,
      });
      const opening = force(opener);
      expect(await openedKeys(path, 'a password for both paths')).toEqual(keys);
      expect([making.derivations, opening.derivations]).toEqual([1, 1]);
    },
    60_000,
  );
});
