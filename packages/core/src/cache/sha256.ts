import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/*
 * The one place the cache takes SHA-256 from. Key derivation needs it synchronous (Web Crypto's `subtle.digest` is
 * asynchronous only), and the main entry loads in a page too, so it is `@noble/hashes` (audited, plain JavaScript,
 * the same in Node and browsers) rather than `node:crypto`.
 */

/**
 * The SHA-256 digest of `text` (UTF-8), as 64 lowercase hex digits.
 *
 * @example
 * ```ts
 * sha256Hex('abc'); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 * ```
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
