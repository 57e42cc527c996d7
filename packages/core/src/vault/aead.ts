import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';

/** The only cipher a vault uses. */
export const AEAD_ALGORITHM = 'aes-256-gcm';
/** AES-256 key length in bytes. */
const AEAD_KEY_LENGTH = 32;
/** GCM nonce length in bytes: 96 bits, the length GCM is specified for (no GHASH of the IV). */
export const NONCE_LENGTH = 12;

/** A fresh random 96-bit nonce. Never reuse one under the same key: GCM's security depends on it. */
export function newNonce(): Buffer {
  return randomFillSync(Buffer.alloc(NONCE_LENGTH));
}

/**
 * AES-256-GCM encryption. Returns the ciphertext followed by the `tagLength`-byte tag, the layout WebCrypto's
 * `subtle.encrypt({name: 'AES-GCM', iv, additionalData, tagLength})` produces, so either can read the other's output.
 */
export function aesGcmEncrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  tagLength: number,
): Buffer {
  checkInputs(key, nonce, tagLength);
  const cipher = createCipheriv(AEAD_ALGORITHM, key, nonce, { authTagLength: tagLength });
  cipher.setAAD(aad);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/**
 * AES-256-GCM decryption of `ciphertext || tag`. Returns the plaintext, or undefined when the tag does not verify
 * (wrong key, changed ciphertext, changed nonce or associated data): the unverified plaintext is zeroed and never
 * returned, so a failure has no partial output.
 */
export function aesGcmDecrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
  tagLength: number,
): Buffer | undefined {
  checkInputs(key, nonce, tagLength);
  if (sealed.length < tagLength) return undefined;
  const decipher = createDecipheriv(AEAD_ALGORITHM, key, nonce, { authTagLength: tagLength });
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - tagLength));
  const body = decipher.update(sealed.subarray(0, sealed.length - tagLength));
  try {
    const tail = decipher.final();
    return tail.length === 0 ? body : Buffer.concat([body, tail]);
  } catch {
    // Node hands out plaintext from update() before final() has checked the tag; it must not outlive the failure.
    body.fill(0);
    return undefined;
  }
}

function checkInputs(key: Uint8Array, nonce: Uint8Array, tagLength: number): void {
  if (key.length !== AEAD_KEY_LENGTH) throw new RangeError(`AES-256-GCM needs a 32-byte key, got ${key.length}`);
  if (nonce.length !== NONCE_LENGTH) throw new RangeError(`the vault uses 12-byte nonces, got ${nonce.length}`);
  if (!Number.isInteger(tagLength) || tagLength < 12 || tagLength > 16) {
    throw new RangeError(`GCM tag length must be 12 to 16 bytes, got ${tagLength}`);
  }
}
