import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Argon2idImplementation,
  type Argon2idInput,
  argon2idImplementation,
  forceArgon2idImplementation,
  nativeArgon2id,
  portableArgon2id,
} from './argon2id.js';
import { deriveKey } from './kdf.js';

const hex = (text: string) => text.replace(/\s+/g, '');
const native = nativeArgon2id();
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nodeHasArgon2 = major > 24 || (major === 24 && minor >= 7);

afterEach(() => forceArgon2idImplementation(undefined));

// Both paths, named; the native one is absent only on a Node.js without crypto.argon2 (the next test holds to that).
const IMPLEMENTATIONS: Array<[string, Argon2idImplementation | undefined]> = [
  ['native (node:crypto argon2)', native],
  ['portable (@noble/hashes)', portableArgon2id],
];

describe('choosing the implementation', () => {
  it('Node.js 24.7 and later have crypto.argon2, and vaults use it there; elsewhere they use the portable one', () => {
    expect(native !== undefined).toBe(nodeHasArgon2);
    expect(argon2idImplementation().name).toBe(nodeHasArgon2 ? 'native' : 'portable');
  });

  it('deriveKey goes through the chosen one, with the parameters it was given', async () => {
    const seen: Argon2idInput[] = [];
    forceArgon2idImplementation({
      name: 'portable',
      derive: (input) => {
        seen.push(input);
        return portableArgon2id.derive(input);
      },
    });
    const params = { algorithm: 'argon2id', version: 19, memory: 64, passes: 2, parallelism: 2 } as const;
    const key = await deriveKey(Buffer.from('pw'), Buffer.alloc(16, 7), params);
    expect(key).toHaveLength(32);
    expect(seen).toEqual([
      { message: Buffer.from('pw'), nonce: Buffer.alloc(16, 7), parallelism: 2, tagLength: 32, memory: 64, passes: 2 },
    ]);
  });

  it('a test can force the portable one, and undo that', () => {
    forceArgon2idImplementation(portableArgon2id);
    expect(argon2idImplementation()).toBe(portableArgon2id);
    forceArgon2idImplementation(undefined);
    expect(argon2idImplementation().name).toBe(nodeHasArgon2 ? 'native' : 'portable');
  });
});

describe.each(IMPLEMENTATIONS)('Argon2id known answers: %s', (_name, implementation) => {
  it.skipIf(implementation === undefined)('RFC 9106 section 5.3 gives the published tag', async () => {
    // The RFC's vector uses a secret and associated data, which deriveKey never passes; so this checks the
    // primitive itself, and the next test checks deriveKey's own wiring.
    const tag = await (implementation as Argon2idImplementation).derive({
      message: Buffer.alloc(32, 0x01),
      nonce: Buffer.alloc(16, 0x02),
      secret: Buffer.alloc(8, 0x03),
      associatedData: Buffer.alloc(12, 0x04),
      parallelism: 4,
      tagLength: 32,
      memory: 32,
      passes: 3,
    });
    expect(Buffer.from(tag).toString('hex')).toBe(
      hex('0d 64 0d f5 8d 78 76 6c 08 c0 37 a3 4a 8b 53 c9 d0 1e f0 45 2d 75 b6 5e b5 25 20 e9 6b 01 e6 59'),
    );
  });

  it.skipIf(implementation === undefined)(
    'the reference implementation test suite (P-H-C/phc-winner-argon2 src/test.c): deriveKey matches',
    async () => {
      forceArgon2idImplementation(implementation);
      // argon2id v=19, t=2, m=2^8 KiB, p=1, "password" / "somesalt": test.c's vector whose memory is small enough
      // for the portable path to take milliseconds (its m=2^16 vector took a second of a free core, past the
      // test's 5 s under load). The defaults' 64 MiB are exercised by vault-argon2id-paths.test.ts, where a vault
      // made on one implementation opens on the other.
      const key = await deriveKey(Buffer.from('password'), Buffer.from('somesalt'), {
        algorithm: 'argon2id',
        version: 19,
        memory: 256,
        passes: 2,
        parallelism: 1,
      });
      expect(key.toString('hex')).toBe('9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe');
    },
  );
});

describe('the two implementations agree', () => {
  // At the defaults (64 MiB, t=3, p=4) one portable derivation is over a second of a free core, past the test's 5 s
  // under load; vault-argon2id-paths.test.ts checks that case, with its time limit, through vault files. Here the
  // two agree over many small parameter sets instead: lanes, passes, memory not a multiple of the lanes' segments,
  // tag lengths, secret and associated data.
  it.skipIf(native === undefined)(
    'on seeded parameter sets with any lanes, passes, memory and tag length',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            parallelism: fc.integer({ min: 1, max: 4 }),
            extraMemory: fc.integer({ min: 0, max: 200 }),
            passes: fc.integer({ min: 1, max: 3 }),
            tagLength: fc.integer({ min: 4, max: 64 }),
            message: fc.uint8Array({ maxLength: 40 }),
            nonce: fc.uint8Array({ minLength: 8, maxLength: 32 }),
            secret: fc.option(fc.uint8Array({ minLength: 1, maxLength: 16 }), { nil: undefined }),
            associatedData: fc.option(fc.uint8Array({ minLength: 1, maxLength: 16 }), { nil: undefined }),
          }),
          async ({ parallelism, extraMemory, secret, associatedData, ...rest }) => {
            const input: Argon2idInput = {
              ...rest,
              parallelism,
              memory: 8 * parallelism + extraMemory,
              ...(secret ? { secret } : {}),
              ...(associatedData ? { associatedData } : {}),
            };
            const [a, b] = await Promise.all([
              (native as Argon2idImplementation).derive(input),
              portableArgon2id.derive(input),
            ]);
            expect(Buffer.from(b).toString('hex')).toBe(Buffer.from(a).toString('hex'));
          },
        ),
        { numRuns: 40, seed: 20_260_801 },
      );
    },
  );
});
