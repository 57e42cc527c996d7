import { allocBytes, type HostBytes } from './host-bytes.js';

/*
 * Standard base64 (RFC 4648 section 4, with padding), the same in Node.js and in pages. `atob` and `btoa` exist in
 * both but work on "binary strings", one character per byte; these work on bytes.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const VALUES = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** `bytes` as standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    chunk += ALPHABET[n >> 18] + (ALPHABET[(n >> 12) & 63] as string) + ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63];
    // Strings built by += are ropes; flattening them every few KiB keeps a 64 MiB encode linear.
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    chunk += `${ALPHABET[n >> 18]}${ALPHABET[(n >> 12) & 63]}==`;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    chunk += `${ALPHABET[n >> 18]}${ALPHABET[(n >> 12) & 63]}${ALPHABET[(n >> 6) & 63]}=`;
  }
  parts.push(chunk);
  return parts.join('');
}

/** Whether `text` is base64 exactly as {@link toBase64} writes it: the standard alphabet, padded, nothing else. */
export function isCanonicalBase64(text: string): boolean {
  if (!CANONICAL.test(text)) return false;
  // The last character before the padding may hold bits the decoded bytes do not use; canonical base64 zeroes them.
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (padding === 0) return true;
  const last = VALUES[text.charCodeAt(text.length - padding - 1)] as number;
  return padding === 2 ? (last & 15) === 0 : (last & 3) === 0;
}

/**
 * Decodes standard base64. Characters outside the alphabet are an error, never skipped (as Node's decoder skips
 * them), so a changed byte in stored data cannot go unnoticed.
 *
 * @throws {RangeError} when `text` is not base64.
 */
export function fromBase64(text: string): HostBytes {
  if (!CANONICAL.test(text)) throw new RangeError('not base64 (standard alphabet, padded)');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = allocBytes((text.length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n =
      ((VALUES[text.charCodeAt(i)] as number) << 18) |
      ((VALUES[text.charCodeAt(i + 1)] as number) << 12) |
      (Math.max(0, VALUES[text.charCodeAt(i + 2)] as number) << 6) |
      Math.max(0, VALUES[text.charCodeAt(i + 3)] as number);
    out[at++] = n >> 16;
    if (at < out.length) out[at++] = (n >> 8) & 255;
    if (at < out.length) out[at++] = n & 255;
  }
  return out;
}
