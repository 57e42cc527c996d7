// Argon2id in a page: hash-wasm in a Web Worker computes what the reference implementation does, and a page that
// cannot start the worker falls back to @noble/hashes on its main thread. (A test file is a page of its own, so the
// fallback, which the page then keeps, touches no other file's tests.)
import { afterEach, describe, expect, it } from 'vitest';
import { toHex, utf8Bytes } from '../bytes/host-bytes.js';
import { argon2idImplementation, portableArgon2id, workerArgon2id } from './argon2id.js';
import { deriveKey } from './kdf.js';

const realWorker = globalThis.Worker;
afterEach(() => {
  globalThis.Worker = realWorker;
});

// P-H-C/phc-winner-argon2 src/test.c: argon2id v=19, t=2, m=2^16 KiB, p=1, "password" / "somesalt".
const REFERENCE = {
  params: { algorithm: 'argon2id', version: 19, memory: 65_536, passes: 2, parallelism: 1 } as const,
  hash: '09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7',
};

describe('Argon2id in a page', () => {
  it('runs in a Web Worker and gives the reference implementation answer; the page keeps its copy of the password', async () => {
    expect(argon2idImplementation()).toBe(workerArgon2id);
    const password = utf8Bytes('password');
    const key = await deriveKey(password, utf8Bytes('somesalt'), REFERENCE.params);
    expect(toHex(key)).toBe(REFERENCE.hash);
    // The worker was handed a copy (and zeroed it); the caller's bytes are the caller's.
    expect(new TextDecoder().decode(password)).toBe('password');
  }, 30_000);

  it('the worker and the main-thread fallback agree on the vault defaults with secrets and salts of every size', async () => {
    const input = {
      message: utf8Bytes('correct horse battery staple'),
      nonce: crypto.getRandomValues(new Uint8Array(64)),
      secret: crypto.getRandomValues(new Uint8Array(16)),
      parallelism: 4,
      tagLength: 32,
      memory: 1024,
      passes: 3,
    };
    const [inWorker, onMainThread] = await Promise.all([workerArgon2id.derive(input), portableArgon2id.derive(input)]);
    expect(toHex(inWorker)).toBe(toHex(onMainThread));
  }, 30_000);

  it('a worker whose script does not load (a bundler that did not emit argon2-worker.js) is a fallback, not a failure', async () => {
    globalThis.Worker = class extends realWorker {
      constructor(_url: string | URL, options?: WorkerOptions) {
        super(new URL('./no-such-argon2-worker.js', import.meta.url), options);
      }
    };
    const key = await deriveKey(utf8Bytes('password'), utf8Bytes('somesalt'), REFERENCE.params);
    expect(toHex(key)).toBe(REFERENCE.hash);
    expect(argon2idImplementation()).toBe(portableArgon2id);
  }, 60_000);

  it('a page that cannot start a worker (a Content-Security-Policy) falls back', async () => {
    globalThis.Worker = class {
      constructor() {
        throw new DOMException('worker-src refused', 'SecurityError');
      }
    } as unknown as typeof Worker;
    const key = await deriveKey(utf8Bytes('password'), utf8Bytes('somesalt'), REFERENCE.params);
    expect(toHex(key)).toBe(REFERENCE.hash);
    // From then on the page derives on its main thread without trying again.
    expect(argon2idImplementation()).toBe(portableArgon2id);
  }, 60_000);
});
