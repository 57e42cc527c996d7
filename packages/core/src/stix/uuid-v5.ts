import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A name-based UUID, version 5, as RFC 9562 section 5.5 defines it: the SHA-1 digest of the namespace's 16 bytes
 * followed by the name's UTF-8 bytes, cut to 16 bytes, with the version nibble set to 5 and the variant bits to
 * `10`. The same namespace and name always give the same UUID.
 *
 * SHA-1 comes from `@noble/hashes` (the same in Node and browsers); what is written here is only the byte layout the RFC specifies, pinned by the
 * RFC's own example (Appendix A.4) in the tests.
 *
 * @example
 * ```ts
 * uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'); // '2ed6657d-e927-568b-95e1-2665a8aea6a2'
 * ```
 */
export function uuidV5(name: string, namespace: string): string {
  if (!UUID.test(namespace)) throw new TypeError(`UUIDv5 namespace ${JSON.stringify(namespace)} is not a UUID`);
  const digest = sha1(concatBytes(hexToBytes(namespace.replaceAll('-', '')), utf8ToBytes(name)));
  const bytes = digest.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytesToHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether `text` is a UUID in its canonical 8-4-4-4-12 hex form (any version). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
