import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ARGON2ID_DEFAULTS, deriveKey, kdfParamsFor, kdfParamsProblem } from './kdf.js';

const hex = (text: string) => text.replace(/\s+/g, '');

// Argon2id's known answers, on both implementations, are in argon2id.test.ts.

describe('Argon2id parameters', () => {
  it('defaults to RFC 9106 section 4, second recommended option: t=3, p=4, m=64 MiB', () => {
    expect(kdfParamsFor({ keyDerivation: 'argon2id', iterations: 600_000 })).toEqual({
      algorithm: 'argon2id',
      version: 19,
      memory: 64 * 1024,
      passes: 3,
      parallelism: 4,
    });
    expect(ARGON2ID_DEFAULTS.memory * 1024).toBe(64 * 1024 * 1024);
  });
});

describe('PBKDF2-HMAC-SHA256 known answers (RFC 7914 section 11)', () => {
  const VECTORS = [
    {
      p: 'passwd',
      s: 'salt',
      c: 1,
      dk: hex(`55 ac 04 6e 56 e3 08 9f ec 16 91 c2 25 44 b6 05 f9 41 85 21 6d de 04 65 e6 8b 9d 57 c2 0d ac bc
               49 ca 9c cc f1 79 b6 45 99 16 64 b3 9d 77 ef 31 7c 71 b8 45 b1 e3 0b d5 09 11 20 41 d3 a1 97 83`),
    },
    {
      p: 'Password',
      s: 'NaCl',
      c: 80_000,
      dk: hex(`4d dc d8 f6 0b 98 be 21 83 0c ee 5e f2 27 01 f9 64 1a 44 18 d0 4c 04 14 ae ff 08 87 6b 34 ab 56
               a1 d4 25 a1 22 58 33 54 9a db 84 1b 51 c9 b3 17 6a 27 2b de bb a1 d0 78 47 8f 62 b3 97 f3 3c 8d`),
    },
  ];

  it.each(VECTORS)('P="$p" S="$s" c=$c dkLen=64', ({ p, s, c, dk }) => {
    expect(pbkdf2Sync(p, s, c, 64, 'sha256').toString('hex')).toBe(dk);
  });

  it.each(VECTORS)(
    'deriveKey gives the first 32 bytes of P="$p" c=$c (PBKDF2 blocks are independent)',
    async ({ p, s, c, dk }) => {
      const key = await deriveKey(Buffer.from(p), Buffer.from(s), {
        algorithm: 'pbkdf2',
        hash: 'sha256',
        iterations: c,
      });
      expect(key.toString('hex')).toBe(dk.slice(0, 64));
    },
  );
});

describe('parameter limits', () => {
  it('accepts the defaults and refuses what would make opening a file a denial of service', () => {
    expect(kdfParamsProblem(ARGON2ID_DEFAULTS)).toBeUndefined();
    expect(kdfParamsProblem({ algorithm: 'pbkdf2', hash: 'sha256', iterations: 600_000 })).toBeUndefined();
    expect(kdfParamsProblem({ ...ARGON2ID_DEFAULTS, memory: 2 ** 30 })).toMatch(/memory/);
    expect(kdfParamsProblem({ ...ARGON2ID_DEFAULTS, passes: 0 })).toMatch(/passes/);
    expect(kdfParamsProblem({ ...ARGON2ID_DEFAULTS, parallelism: 4, memory: 16 })).toMatch(/8 KiB per lane/);
    expect(kdfParamsProblem({ algorithm: 'pbkdf2', hash: 'sha256', iterations: 10 ** 12 })).toMatch(/iterations/);
    expect(kdfParamsProblem({ algorithm: 'pbkdf2', hash: 'sha256', iterations: 999 })).toMatch(/iterations/);
  });
});
