import { toBase64 } from '../bytes/base64.js';
import { constantTimeEqual, type HostBytes, randomBytes } from '../bytes/host-bytes.js';
import { AEAD_ALGORITHM, aesGcmDecrypt, aesGcmEncrypt, newNonce } from './aead.js';
import {
  ENVELOPE_FORMAT,
  ENVELOPE_VERSION,
  type EnvelopeKdf,
  envelopeHeader,
  fromBase64,
  type VaultEnvelope,
  withChecksum,
} from './envelope.js';
import { deriveKey } from './kdf.js';
import { type VaultKeys, vaultKeys } from './key-schedule.js';
import { VaultAuthError } from './vault-auth-error.js';
import { VaultCorruptError } from './vault-corrupt-error.js';

/** A fresh random salt of `size` bytes. */
export function newSalt(size: number): HostBytes {
  return randomBytes(size);
}

/** Runs the envelope's KDF on `password` and splits the result into the vault's keys. */
export async function deriveVaultKeys(password: Uint8Array, kdf: EnvelopeKdf): Promise<VaultKeys> {
  const derived = await deriveKey(password, fromBase64(kdf.salt), kdf);
  try {
    return vaultKeys(derived);
  } finally {
    derived.fill(0);
  }
}

/** What {@link sealEnvelope} needs besides the payload. */
export interface SealParams {
  encryptionKey: Uint8Array;
  keyCheck: Uint8Array;
  kdf: EnvelopeKdf;
  tagLength: number;
  rotatedAt: string;
}

/** Encrypts `payload` under a fresh nonce into a complete envelope. The caller zeroes `payload`. */
export async function sealEnvelope(payload: Uint8Array, params: SealParams): Promise<VaultEnvelope> {
  const nonce = newNonce();
  const unsealed = {
    format: ENVELOPE_FORMAT,
    version: ENVELOPE_VERSION,
    rotatedAt: params.rotatedAt,
    cipher: { algorithm: AEAD_ALGORITHM, nonce: toBase64(nonce), tagLength: params.tagLength },
    kdf: params.kdf,
    keyCheck: toBase64(params.keyCheck),
    ciphertext: '',
  } as const;
  const ciphertext = await aesGcmEncrypt(
    params.encryptionKey,
    nonce,
    payload,
    envelopeHeader(unsealed),
    params.tagLength,
  );
  return withChecksum({ ...unsealed, ciphertext: toBase64(ciphertext) });
}

/**
 * Decrypts an envelope's payload with keys derived from a candidate password. The key-check value and GCM together
 * say what went wrong:
 *
 * | key check | GCM    | meaning                                                           |
 * | --------- | ------ | ----------------------------------------------------------------- |
 * | matches   | passes | the payload                                                       |
 * | differs   | fails  | wrong password: {@link VaultAuthError}                            |
 * | matches   | fails  | ciphertext, nonce or header changed: {@link VaultCorruptError}    |
 * | differs   | passes | the key-check value itself changed: {@link VaultCorruptError}     |
 *
 * @throws {VaultAuthError | VaultCorruptError} as above; nothing decrypted is returned or kept.
 */
export async function unsealEnvelope(envelope: VaultEnvelope, keys: VaultKeys, path?: string): Promise<HostBytes> {
  const stored = fromBase64(envelope.keyCheck);
  const checkMatches = constantTimeEqual(stored, keys.keyCheck);
  const payload = await aesGcmDecrypt(
    keys.encryptionKey,
    fromBase64(envelope.cipher.nonce),
    fromBase64(envelope.ciphertext),
    envelopeHeader(envelope),
    envelope.cipher.tagLength,
  );
  const where = path ? ` ${path}` : '';
  const options = path ? { path } : {};
  if (payload && checkMatches) return payload;
  if (payload) {
    payload.fill(0);
    throw new VaultCorruptError('keyCheck', `Vault${where} is corrupt: its key-check value was changed`, options);
  }
  if (checkMatches) {
    throw new VaultCorruptError(
      'ciphertext',
      `Vault${where} is corrupt: the password is right but the ciphertext or its authenticated header was changed`,
      options,
    );
  }
  throw new VaultAuthError(`Vault${where} cannot be unlocked: wrong password`, options);
}
