import { nodeBuiltin } from '../runtime/node-builtin.js';
import { deriveInWorker, workersAvailable } from './argon2id-worker-client.js';

/** The inputs of one Argon2id computation (RFC 9106 section 3.1), named as Node's `crypto.argon2` names them. */
export interface Argon2idInput {
  /** The password P. */
  message: Uint8Array;
  /** The salt S. */
  nonce: Uint8Array;
  /** The secret K (the vault passes none; known-answer tests do). */
  secret?: Uint8Array | undefined;
  /** The associated data X (the vault passes none; known-answer tests do). */
  associatedData?: Uint8Array | undefined;
  parallelism: number;
  tagLength: number;
  /** Memory in KiB. */
  memory: number;
  passes: number;
}

/** One way of computing Argon2id (version 0x13). */
export interface Argon2idImplementation {
  /**
   * `native` is Node's `crypto.argon2`; `worker` is `hash-wasm` (WebAssembly) in a Web Worker, in a page;
   * `portable` is `@noble/hashes`, plain JavaScript on the calling thread, wherever JavaScript runs.
   */
  readonly name: 'native' | 'worker' | 'portable';
  derive(input: Argon2idInput): Promise<Uint8Array>;
}

/**
 * What this module uses of Node's `crypto.argon2` (declared here: the module also compiles for pages, which have no
 * Node.js types).
 */
type NodeArgon2 = (
  algorithm: 'argon2id',
  parameters: Omit<Argon2idInput, 'secret' | 'associatedData'> & { secret?: Uint8Array; associatedData?: Uint8Array },
  callback: (error: Error | null, key: Uint8Array) => void,
) => void;

/** Node's built-in Argon2 (`crypto.argon2`, Node.js 24.7 and later); it runs on the libuv thread pool. */
function nativeImplementation(argon2: NodeArgon2): Argon2idImplementation {
  return {
    name: 'native',
    derive: (input) =>
      new Promise((resolve, reject) => {
        const { secret, associatedData, ...required } = input;
        const parameters: Parameters<NodeArgon2>[1] = { ...required };
        if (secret) parameters.secret = secret;
        if (associatedData) parameters.associatedData = associatedData;
        argon2('argon2id', parameters, (error, key) => (error ? reject(error) : resolve(key)));
      }),
  };
}

/**
 * `@noble/hashes` Argon2id: no native code and no WebAssembly, so it runs wherever JavaScript does (Node.js before
 * 24.7, a page that cannot start a worker). It works on the calling thread and yields to the event loop every
 * 10 ms, so a server that unlocks a vault keeps answering meanwhile; it zeroes its working memory when done. Its code
 * is imported at its first derivation, so a page's bundler puts it in a chunk loaded then, not with the import of
 * core (issue 24: the size of a page).
 */
export const portableArgon2id: Argon2idImplementation = {
  name: 'portable',
  derive: async (input) => {
    const { argon2idAsync } = await import('@noble/hashes/argon2.js');
    return argon2idAsync(input.message, input.nonce, {
      t: input.passes,
      m: input.memory,
      p: input.parallelism,
      dkLen: input.tagLength,
      version: 0x13,
      key: input.secret,
      personalization: input.associatedData,
      // Its own cap (1 GiB by default) is not ours: the vault's parameter limits (KDF_LIMITS) were checked before.
      maxmem: input.memory * 1024,
    });
  },
};

/**
 * `hash-wasm`'s Argon2id (WebAssembly, several times faster than plain JavaScript) in a Web Worker, so a page stays
 * responsive for the second or so the vault's defaults take. A page that cannot start the worker (a
 * Content-Security-Policy without `worker-src`, a bundler that did not emit the worker's file) derives with
 * {@link portableArgon2id} instead, and does so from then on.
 */
export const workerArgon2id: Argon2idImplementation = {
  name: 'worker',
  derive: (input) => deriveInWorker(input, portableArgon2id),
};

/** Node's `crypto.argon2`, or undefined outside Node.js and on a Node.js that has none (before 24.7). */
export function nativeArgon2id(): Argon2idImplementation | undefined {
  // The type says it is always there; before Node.js 24.7 it is not.
  const argon2 = nodeBuiltin<{ argon2?: NodeArgon2 }>('node:crypto')?.argon2;
  return typeof argon2 === 'function' ? nativeImplementation(argon2) : undefined;
}

let forced: Argon2idImplementation | undefined;

/**
 * The implementation vaults use: Node's own where it has one (it is faster), a Web Worker in a page that can start
 * one, the portable one elsewhere.
 */
export function argon2idImplementation(): Argon2idImplementation {
  return forced ?? nativeArgon2id() ?? (workersAvailable() ? workerArgon2id : portableArgon2id);
}

/**
 * Makes {@link argon2idImplementation} answer `implementation` (undefined: back to the automatic choice), so tests
 * can run vaults on the portable path where Node has the native one. Internal: not exported from the package.
 */
export function forceArgon2idImplementation(implementation: Argon2idImplementation | undefined): void {
  forced = implementation;
}
