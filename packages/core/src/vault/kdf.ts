import { bufferSource, type HostBytes, hostView } from '../bytes/host-bytes.js';
import { argon2idImplementation } from './argon2id.js';

/** Argon2id parameters, as a vault envelope records them. `memory` is in KiB. */
export interface Argon2idParams {
  algorithm: 'argon2id';
  /** Argon2 version 0x13 (19), the one RFC 9106 specifies and Node implements. */
  version: 19;
  memory: number;
  passes: number;
  parallelism: number;
}

/** PBKDF2 parameters, as a vault envelope records them. */
export interface Pbkdf2Params {
  algorithm: 'pbkdf2';
  hash: 'sha256';
  iterations: number;
}

/** The key-derivation function of a vault and its parameters (the salt is stored beside them). */
export type KdfParams = Argon2idParams | Pbkdf2Params;

/**
 * Argon2id with RFC 9106 section 4's second recommended option, for memory-constrained environments: t = 3 passes,
 * p = 4 lanes, m = 64 MiB. (The first option, t = 1 with 2 GiB, is more than a library should take from its host.)
 */
export const ARGON2ID_DEFAULTS: Readonly<Argon2idParams> = Object.freeze({
  algorithm: 'argon2id',
  version: 19,
  memory: 65_536,
  passes: 3,
  parallelism: 4,
});

/** Bytes of key material every KDF produces: a 256-bit key, as RFC 9106 recommends for the tag. */
const DERIVED_KEY_LENGTH = 32;

/**
 * Bounds a vault file's parameters must respect before any key is derived: a file is data from disk, and parameters
 * such as 1 TiB of memory or 10^12 iterations would turn opening it into a denial of service.
 */
const KDF_LIMITS = {
  argon2id: { memory: { min: 8, max: 2_097_152 }, passes: { min: 1, max: 64 }, parallelism: { min: 1, max: 255 } },
  pbkdf2: { iterations: { min: 1000, max: 100_000_000 } },
} as const;

/** The parameters a new vault gets from the `security.encryption` options. */
export function kdfParamsFor(settings: { keyDerivation: 'argon2id' | 'pbkdf2'; iterations: number }): KdfParams {
  if (settings.keyDerivation === 'pbkdf2') {
    return { algorithm: 'pbkdf2', hash: 'sha256', iterations: settings.iterations };
  }
  return { ...ARGON2ID_DEFAULTS };
}

/** What is wrong with `params` (outside {@link KDF_LIMITS}), or undefined when they may be used. */
export function kdfParamsProblem(params: KdfParams): string | undefined {
  const within = (value: number, range: { min: number; max: number }) =>
    Number.isInteger(value) && value >= range.min && value <= range.max;
  if (params.algorithm === 'pbkdf2') {
    return within(params.iterations, KDF_LIMITS.pbkdf2.iterations)
      ? undefined
      : `pbkdf2 iterations ${params.iterations} outside ${KDF_LIMITS.pbkdf2.iterations.min}..${KDF_LIMITS.pbkdf2.iterations.max}`;
  }
  const limits = KDF_LIMITS.argon2id;
  for (const name of ['memory', 'passes', 'parallelism'] as const) {
    if (!within(params[name], limits[name])) {
      return `argon2id ${name} ${params[name]} outside ${limits[name].min}..${limits[name].max}`;
    }
  }
  // Argon2 needs at least 8 KiB of memory per lane.
  if (params.memory < 8 * params.parallelism) return `argon2id memory ${params.memory} KiB is below 8 KiB per lane`;
  return undefined;
}

/**
 * Derives {@link DERIVED_KEY_LENGTH} bytes from a password and salt. PBKDF2 is HMAC-SHA-256 through WebCrypto (off
 * the main thread in Node.js and in pages). Argon2id is Node's `crypto.argon2` (thread pool) where it exists (Node.js
 * 24.7 and later), `hash-wasm` in a Web Worker in a page, and `@noble/hashes` elsewhere (see `argon2id.ts`): all
 * compute the same function, so a vault opens on any of them.
 */
export async function deriveKey(password: Uint8Array, salt: Uint8Array, params: KdfParams): Promise<HostBytes> {
  if (params.algorithm === 'pbkdf2') {
    const subtle = globalThis.crypto.subtle;
    const key = await subtle.importKey('raw', bufferSource(password), 'PBKDF2', false, ['deriveBits']);
    const bits = await subtle.deriveBits(
      { name: 'PBKDF2', hash: 'SHA-256', salt: bufferSource(salt), iterations: params.iterations },
      key,
      DERIVED_KEY_LENGTH * 8,
    );
    return hostView(new Uint8Array(bits));
  }
  const key = await argon2idImplementation().derive({
    message: password,
    nonce: salt,
    parallelism: params.parallelism,
    tagLength: DERIVED_KEY_LENGTH,
    memory: params.memory,
    passes: params.passes,
  });
  // A view, not a copy: the caller zeroes what it gets, and that must be the only copy.
  return hostView(key);
}
