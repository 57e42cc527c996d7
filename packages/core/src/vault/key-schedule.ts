import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { type HostBytes, hostView, utf8Bytes } from '../bytes/host-bytes.js';

// Distinct HKDF labels make the encryption key and the key-check key independent: the check value, stored in the
// clear, says nothing about the key that encrypts.
const ENCRYPTION_INFO = 'threatlib-vault/1 aes-256-gcm key';
const CHECK_INFO = 'threatlib-vault/1 key-check key';
const CHECK_MESSAGE = 'threatlib-vault/1 key check';

/** Bytes of the key-check value (an HMAC-SHA-256 output). */
export const KEY_CHECK_LENGTH = 32;

/** The keys a vault uses, from the KDF output. */
export interface VaultKeys {
  /** The AES-256-GCM key. */
  encryptionKey: HostBytes;
  /**
   * HMAC-SHA-256 of a constant under a second HKDF subkey. Stored in the envelope, it tells a wrong password (the
   * check differs) from a damaged ciphertext (the check matches, decryption fails). It lets an attacker test a
   * password guess no faster than decrypting would: each guess still costs one KDF run.
   */
  keyCheck: HostBytes;
}

/**
 * Splits the KDF output into the encryption key and the key-check value with HKDF-SHA-256 (RFC 5869; no salt: the
 * input is already uniformly random), from `@noble/hashes` (audited, synchronous, the same in Node.js and in pages).
 * The caller zeroes `derived` when done.
 */
export function vaultKeys(derived: Uint8Array): VaultKeys {
  const encryptionKey = hostView(hkdf(sha256, derived, undefined, utf8Bytes(ENCRYPTION_INFO), 32));
  const checkKey = hkdf(sha256, derived, undefined, utf8Bytes(CHECK_INFO), 32);
  const keyCheck = hostView(hmac(sha256, checkKey, utf8Bytes(CHECK_MESSAGE)));
  checkKey.fill(0);
  return { encryptionKey, keyCheck };
}
