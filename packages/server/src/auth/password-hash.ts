import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const DEFAULTS = { ln: 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: { ln: number; r: number; p: number }): Promise<Buffer> {
  const N = 2 ** params.ln;
  return new Promise((resolve, reject) => {
    scrypt(
      password,
      salt,
      KEY_LENGTH,
      { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/**
 * Hashes a password for `security.authentication.users` (basic authentication): scrypt with a random 16-byte salt,
 * written in the PHC string format `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64, no padding).
 *
 * @example
 * ```sh
 * threatlib hash-password   # prompts, prints the string to put in the config
 * ```
 */
export async function hashPassword(password: string, params = DEFAULTS): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, params);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64').replace(/=+$/, '')}$${hash.toString('base64').replace(/=+$/, '')}`;
}

const SCRYPT_PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface ScryptHash {
  params: { ln: number; r: number; p: number };
  salt: Buffer;
  hash: Buffer;
}

/** A hash made by {@link hashPassword}, read; or why it is not one (in words that never quote it). */
function readHash(encoded: unknown): ScryptHash | string {
  if (typeof encoded !== 'string') return `expected a password hash string, got ${typeof encoded}`;
  const match = SCRYPT_PHC.exec(encoded);
  if (!match) {
    return /^\$argon2(?:id|i|d)\$/.test(encoded)
      ? 'an argon2 hash: this server verifies scrypt hashes only'
      : encoded.startsWith('$')
        ? 'not an scrypt PHC string this server can verify'
        : 'not a password hash (it looks like a password in clear)';
  }
  const [, ln, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  if (params.ln < 10 || params.ln > 20) return `an scrypt hash with ln=${params.ln}: ln is 10 to 20`;
  if (params.r < 1 || params.p < 1) return 'an scrypt hash with r or p below 1';
  const expected = Buffer.from(hash, 'base64');
  if (expected.length !== KEY_LENGTH) {
    return `an scrypt hash of ${expected.length} bytes: hashes made by threatlib are ${KEY_LENGTH}`;
  }
  return { params, salt: Buffer.from(salt, 'base64'), hash: expected };
}

/**
 * Why `encoded` is not a hash {@link verifyPassword} can check (a password in clear, an argon2 hash, a malformed
 * string), or undefined when it is one. The reason never quotes the value.
 */
export function describePasswordHash(encoded: unknown): string | undefined {
  const read = readHash(encoded);
  return typeof read === 'string' ? read : undefined;
}

/** Whether `password` matches a hash made by {@link hashPassword}; false (never an exception) for a malformed hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const read = readHash(encoded);
  if (typeof read === 'string') return false;
  const actual = await derive(password, read.salt, read.params);
  return timingSafeEqual(actual, read.hash);
}
