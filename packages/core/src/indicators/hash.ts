import { accepted, type CheckResult, refused } from './check-result.js';

const HASH_LENGTHS = { md5: 32, sha1: 40, sha256: 64 } as const;

/** The indicator types that are file hashes. */
export type HashType = keyof typeof HASH_LENGTHS;

const HASH_NAMES: Readonly<Record<HashType, string>> = {
  md5: 'an MD5 hash',
  sha1: 'a SHA-1 hash',
  sha256: 'a SHA-256 hash',
};

const HEX = /^[0-9a-f]+$/i;

/**
 * Whether `text` has the shape of a hash: hex digits only, at least as many as an MD5. Shorter hex runs are left to
 * the other checkers (`deadbeef` is not worth calling a broken hash).
 */
export function looksLikeHash(text: string): boolean {
  return text.length >= HASH_LENGTHS.md5 && HEX.test(text);
}

/**
 * Checks that `text` is an MD5, SHA-1 or SHA-256 hex digest (`expected` when given, otherwise chosen by length);
 * the value is lower-cased.
 */
export function checkHash(text: string, expected?: HashType): CheckResult {
  const nonHex = /[^0-9a-f]/i.exec(text);
  if (nonHex) return refused(`contains "${nonHex[0]}", which is not a hexadecimal digit`);
  if (expected !== undefined) {
    const length = HASH_LENGTHS[expected];
    if (text.length !== length) return refused(`has ${text.length} hex digits; ${HASH_NAMES[expected]} has ${length}`);
    return accepted(expected, text.toLowerCase());
  }
  const type = (Object.keys(HASH_LENGTHS) as HashType[]).find((candidate) => HASH_LENGTHS[candidate] === text.length);
  if (type === undefined) {
    return refused(`has ${text.length} hex digits; expected 32 (MD5), 40 (SHA-1) or 64 (SHA-256)`);
  }
  return accepted(type, text.toLowerCase());
}
