import { createHmac, hkdfSync } from 'node:crypto';

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
  encryptionKey: Buffer;
  /**
   * HMAC-SHA-256 of a constant under a second HKDF subkey. Stored in the envelope, it tells a wrong password (the
   * check differs) from a damaged ciphertext (the check matches, decryption fails). It lets an attacker test a
   * password guess no faster than decrypting would: each guess still costs one KDF run.
   */
  keyCheck: Buffer;
}

/**
 * Splits the KDF output into the encryption key and the key-check value with HKDF-SHA-256 (RFC 5869; no salt: the
 * input is already uniformly random). The caller zeroes `derived` when done.
 */
export function vaultKeys(derived: Uint8Array): VaultKeys {
  const encryptionKey = Buffer.from(hkdfSync('sha256', derived, new Uint8Array(0), ENCRYPTION_INFO, 32));
  const checkKey = Buffer.from(hkdfSync('sha256', derived, new Uint8Array(0), CHECK_INFO, 32));
  const keyCheck = createHmac('sha256', checkKey).update(CHECK_MESSAGE).digest();
  checkKey.fill(0);
  return { encryptionKey, keyCheck };
}
