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

/** Whether `password` matches a hash made by {@link hashPassword}; false (never an exception) for a malformed hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(encoded);
  if (!match) return false;
  const [, ln, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  if (params.ln < 10 || params.ln > 20) return false;
  const expected = Buffer.from(hash, 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, Buffer.from(salt, 'base64'), params);
  return timingSafeEqual(actual, expected);
}
