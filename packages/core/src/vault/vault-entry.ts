// What a vault accepts: a password, and an entry (a feed id and its key), refused with a ValidationError that says
// what was wrong.

import { type HostBytes, hostView, utf8Bytes } from '../bytes/host-bytes.js';
import { ValidationError } from '../errors/validation-error.js';

/** A feed id: lower-case letters, digits, `_` or `-`, starting with a letter. */
const FEED_ID = /^[a-z][a-z0-9_-]{0,63}$/;

/** Refuses a password that is not a non-empty string. */
export function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length === 0) {
    throw new ValidationError('vault password', [{ path: 'password', message: 'expected a non-empty string' }]);
  }
}

/** Checks one entry and returns its key as bytes the vault owns (a Uint8Array is taken over, not copied). */
export function checkEntry(feed: string, key: unknown): HostBytes {
  if (!FEED_ID.test(feed)) {
    throw new ValidationError('vault entry', [
      { path: feed, message: 'a feed id is lower-case letters, digits, "_" or "-", starting with a letter' },
    ]);
  }
  if (typeof key === 'string' && key.length > 0) return utf8Bytes(key);
  if (key instanceof Uint8Array && key.length > 0) return hostView(key);
  throw new ValidationError('vault entry', [{ path: feed, message: 'expected a non-empty key (string or bytes)' }]);
}

/**
 * Checks what `onRotate` returned: undefined when it returned nothing (the keys are kept), else its entries, each
 * checked and its key as bytes the vault owns.
 */
export function checkRotatedKeys(fresh: unknown): Array<readonly [feed: string, key: HostBytes]> | undefined {
  if (fresh === undefined || fresh === null) return undefined;
  if (typeof fresh !== 'object') {
    throw new ValidationError('onRotate result', [
      { path: '(root)', message: 'expected an object of feed id -> new key, or nothing' },
    ]);
  }
  return Object.entries(fresh).map(([feed, key]) => [feed, checkEntry(feed, key)] as const);
}
