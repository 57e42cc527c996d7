// What the vault tests share: fast settings, a vault saved in the test's own directory, and an attacker's edits.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { silentLogger } from '../logging/logger.js';
import { ManualClock } from '../scheduler/clock.js';
import { serializeEnvelope, type VaultEnvelope, withChecksum } from './envelope.js';
import { Vault, type VaultSettings } from './vault.js';

export const START = Date.parse('2026-01-01T00:00:00Z');
export const PASSWORD = 'correct horse battery staple';
export const OTX = 'otx-3f9a1c7e5b2d4e6f8a0b1c2d3e4f5a6b';
export const VT = 'vt-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d';

/** Fast settings (PBKDF2 at its minimum) unless a test is about the KDF. */
export function settings(overrides: Partial<VaultSettings> = {}): VaultSettings {
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

export async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export async function savedVault(
  overrides: Partial<VaultSettings> = {},
  keys: Record<string, string> = { feed_otx: OTX },
) {
  const path = join(dir, 'keys.vault');
  const vault = await Vault.create(PASSWORD, keys, settings(overrides));
  await vault.save(path);
  return { path, vault, bytes: await readFile(path) };
}

/** Rewrites a saved vault as an attacker who knows the format would: change a field, fix the checksum. */
export async function tamper(path: string, change: (envelope: VaultEnvelope) => void): Promise<void> {
  const envelope = JSON.parse(await readFile(path, 'utf8')) as VaultEnvelope;
  change(envelope);
  await writeFile(path, serializeEnvelope(withChecksum(envelope)));
}

export function flipBase64(text: string, at = 0): string {
  const bytes = Buffer.from(text, 'base64');
  bytes[at] = (bytes[at] as number) ^ 0x01;
  return bytes.toString('base64');
}

/** The directory of the test under way: a fresh one for each test of a file that calls `freshDirPerTest()`. */
export let dir: string;

/** Gives each test of the calling file a fresh directory, `dir`, removed after the test. */
export function freshDirPerTest(): void {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-vault-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
}
