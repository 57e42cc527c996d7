import { allocBytes, bufferSource, type HostBytes, hostView, randomBytes } from '../bytes/host-bytes.js';

/*
 * AES-256-GCM through WebCrypto (`crypto.subtle`), the same in Node.js (its `globalThis.crypto`) and in a page, so a
 * vault sealed in one opens in the other. WebCrypto is asynchronous only; its output is the ciphertext followed by
 * the tag, the layout the envelope stores.
 */

/** The only cipher a vault uses. */
export const AEAD_ALGORITHM = 'aes-256-gcm';
/** AES-256 key length in bytes. */
const AEAD_KEY_LENGTH = 32;
/** GCM nonce length in bytes: 96 bits, the length GCM is specified for (no GHASH of the IV). */
export const NONCE_LENGTH = 12;

/** A fresh random 96-bit nonce. Never reuse one under the same key: GCM's security depends on it. */
export function newNonce(): HostBytes {
  return randomBytes(NONCE_LENGTH);
}

/**
 * AES-256-GCM encryption. Resolves to the ciphertext followed by the `tagLength`-byte tag.
 *
 * @throws {RangeError} (as a rejection) for a key, nonce or tag length the vault never uses.
 */
export async function aesGcmEncrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  tagLength: number,
): Promise<HostBytes> {
  checkInputs(key, nonce, tagLength);
  const subtle = webCrypto();
  const cryptoKey = await subtle.importKey('raw', bufferSource(key), 'AES-GCM', false, ['encrypt']);
  const sealed = await subtle.encrypt(
    { name: 'AES-GCM', iv: bufferSource(nonce), additionalData: bufferSource(aad), tagLength: tagLength * 8 },
    cryptoKey,
    bufferSource(plaintext),
  );
  return hostView(new Uint8Array(sealed));
}

/**
 * AES-256-GCM decryption of `ciphertext || tag`. Resolves to the plaintext, or undefined when the tag does not
 * verify (wrong key, changed ciphertext, changed nonce or associated data): WebCrypto releases no plaintext before
 * the tag is checked, so a failure has no partial output.
 */
export async function aesGcmDecrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
  tagLength: number,
): Promise<HostBytes | undefined> {
  checkInputs(key, nonce, tagLength);
  if (sealed.length < tagLength) return undefined;
  const subtle = webCrypto();
  const cryptoKey = await subtle.importKey('raw', bufferSource(key), 'AES-GCM', false, ['decrypt']);
  try {
    const plain = await subtle.decrypt(
      { name: 'AES-GCM', iv: bufferSource(nonce), additionalData: bufferSource(aad), tagLength: tagLength * 8 },
      cryptoKey,
      bufferSource(sealed),
    );
    const out = allocBytes(plain.byteLength);
    const view = new Uint8Array(plain);
    out.set(view);
    view.fill(0);
    return out;
  } catch {
    return undefined;
  }
}

function webCrypto(): SubtleCrypto {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new Error('the vault needs WebCrypto (crypto.subtle): in a page, only a secure context (https://) has it');
  }
  return subtle;
}

type SubtleCrypto = typeof globalThis.crypto.subtle;

function checkInputs(key: Uint8Array, nonce: Uint8Array, tagLength: number): void {
  if (key.length !== AEAD_KEY_LENGTH) throw new RangeError(`AES-256-GCM needs a 32-byte key, got ${key.length}`);
  if (nonce.length !== NONCE_LENGTH) throw new RangeError(`the vault uses 12-byte nonces, got ${nonce.length}`);
  if (!Number.isInteger(tagLength) || tagLength < 12 || tagLength > 16) {
    throw new RangeError(`GCM tag length must be 12 to 16 bytes, got ${tagLength}`);
  }
}
