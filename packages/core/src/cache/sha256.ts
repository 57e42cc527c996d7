import { createHash } from 'node:crypto';

/*
 * The one place the cache takes SHA-256 from. Node's `createHash` is synchronous, which key derivation needs (Web
 * Crypto's `subtle.digest` is asynchronous only). A browser build replaces this file alone with a small synchronous
 * implementation such as `@noble/hashes`, which the workspace does not depend on today.
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
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
