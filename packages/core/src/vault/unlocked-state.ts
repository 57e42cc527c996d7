// The secrets a vault holds while unlocked (keys, password, encryption key, key check): opening an envelope into them,
// sealing them into a new envelope, and erasing them.

import { toBase64 } from '../bytes/base64.js';
import { copyBytes, type HostBytes } from '../bytes/host-bytes.js';
import type { EnvelopeKdf, VaultEnvelope } from './envelope.js';
import { kdfParamsFor } from './kdf.js';
import { decodePayload, encodePayload } from './payload.js';
import { ProtectedBytes, type ProtectionOptions } from './protected-bytes.js';
import { deriveVaultKeys, newSalt, sealEnvelope, unsealEnvelope } from './seal.js';
import { VaultCorruptError } from './vault-corrupt-error.js';
import type { VaultSettings } from './vault-settings.js';

/** The keys and secrets held while the vault is unlocked; all erased on lock. */
export interface OpenState {
  keys: Map<string, ProtectedBytes>;
  /** Kept only while unlocked, so that rotation can derive a key from a fresh salt. */
  password: ProtectedBytes;
  encryptionKey: ProtectedBytes;
  keyCheck: HostBytes;
}

/**
 * The state of a new vault holding `entries` (checked, their keys taken over), under a key derived from `password`
 * with a fresh salt and the KDF `settings` choose; with that KDF, for the envelope.
 */
export async function newOpenState(
  password: string,
  entries: ReadonlyArray<readonly [feed: string, key: HostBytes]>,
  settings: VaultSettings,
): Promise<{ state: OpenState; kdf: EnvelopeKdf }> {
  const protection = protectionOf(settings);
  const kdf: EnvelopeKdf = {
    ...kdfParamsFor(settings),
    salt: toBase64(newSalt(settings.saltSize)),
  };
  const passwordBytes = ProtectedBytes.fromString(password, protection);
  let derived: Awaited<ReturnType<typeof deriveWith>>;
  try {
    derived = await deriveWith(passwordBytes, kdf);
  } catch (error) {
    passwordBytes.erase();
    throw error;
  }
  const state: OpenState = {
    keys: new Map(entries.map(([feed, key]) => [feed, protect(key, protection)])),
    password: passwordBytes,
    encryptionKey: new ProtectedBytes(derived.encryptionKey, protection),
    keyCheck: derived.keyCheck,
  };
  return { state, kdf };
}

/** Derives the keys of `envelope` from `password` and decrypts it into the state of an unlocked vault. */
export async function openEnvelope(
  envelope: VaultEnvelope,
  password: ProtectedBytes,
  protection: ProtectionOptions,
  path: string | undefined,
): Promise<{ state: OpenState; feeds: string[] }> {
  const derived = await deriveWith(password, envelope.kdf);
  let payload: HostBytes;
  try {
    payload = await unsealEnvelope(envelope, derived, path);
  } catch (error) {
    derived.encryptionKey.fill(0);
    derived.keyCheck.fill(0);
    throw error;
  }
  try {
    const decoded = decodePayload(payload);
    if ('problem' in decoded) {
      derived.encryptionKey.fill(0);
      throw new VaultCorruptError('ciphertext', `Vault${path ? ` ${path}` : ''} is corrupt: ${decoded.problem}`, {
        ...(path ? { path } : {}),
      });
    }
    return {
      state: {
        keys: new Map(decoded.entries.map(({ feed, key }) => [feed, new ProtectedBytes(key, protection)])),
        password,
        encryptionKey: new ProtectedBytes(derived.encryptionKey, protection),
        keyCheck: derived.keyCheck,
      },
      feeds: decoded.entries.map((entry) => entry.feed),
    };
  } finally {
    payload.fill(0);
  }
}

/** Runs the KDF on a copy of `password`, zeroed once it is done. */
export async function deriveWith(password: ProtectedBytes, kdf: EnvelopeKdf) {
  // The KDF runs on the thread pool: hand it a copy and zero the copy when it is done.
  const plain = password.copy();
  try {
    return await deriveVaultKeys(plain, kdf);
  } finally {
    plain.fill(0);
  }
}

/**
 * Encrypts what `state` holds into an envelope. Everything it needs is copied before it returns (the keys into the
 * payload, the encryption key, the key check), so the state may be locked and erased while the encryption runs; the
 * copies are zeroed when it ends.
 */
export function seal(state: OpenState, kdf: EnvelopeKdf, tagLength: number, rotatedAt: string): Promise<VaultEnvelope> {
  const entries = [...state.keys.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const plain = entries.map(([feed, key]) => ({ feed, key: key.copy() }));
  let payload: HostBytes;
  try {
    payload = encodePayload(plain);
  } finally {
    for (const entry of plain) entry.key.fill(0);
  }
  const encryptionKey = state.encryptionKey.copy();
  const keyCheck = copyBytes(state.keyCheck);
  return sealEnvelope(payload, { encryptionKey, keyCheck, kdf, tagLength, rotatedAt }).finally(() => {
    payload.fill(0);
    encryptionKey.fill(0);
    keyCheck.fill(0);
  });
}

/** Erases a state that is not kept (the keys, the encryption key, the key check; not the password). */
export function discard(state: OpenState): void {
  for (const key of state.keys.values()) key.erase();
  state.encryptionKey.erase();
  state.keyCheck.fill(0);
}

/** How the state's bytes are held, as `settings` say. */
export function protectionOf(settings: VaultSettings): ProtectionOptions {
  return { obfuscate: settings.obfuscateKeys, secureErase: settings.secureErase };
}

/** Holds a key as the vault's protected bytes. */
export function protect(key: HostBytes, protection: ProtectionOptions): ProtectedBytes {
  return new ProtectedBytes(key, protection);
}
