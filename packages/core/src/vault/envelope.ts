import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64 as decodeBase64, isCanonicalBase64 } from '../bytes/base64.js';
import { bytesEqual, type HostBytes, toHex, utf8Bytes } from '../bytes/host-bytes.js';
import { NONCE_LENGTH } from './aead.js';
import { type KdfParams, kdfParamsProblem } from './kdf.js';
import { KEY_CHECK_LENGTH } from './key-schedule.js';
import { VaultCorruptError } from './vault-corrupt-error.js';

/** The `format` field of every vault file. */
export const ENVELOPE_FORMAT = 'threatlib-vault';
/** The envelope version this release writes and reads. */
export const ENVELOPE_VERSION = 1;

/** Salt lengths a vault accepts, in bytes (the `security.encryption.saltSize` range). */
const SALT_LIMITS = { min: 16, max: 1024 } as const;

/** The key-derivation function of a vault, its parameters and its salt (base64). */
export type EnvelopeKdf = KdfParams & { salt: string };

/**
 * A vault as stored: a JSON document that records everything needed to open it, so a vault opens with the
 * parameters it was made with whatever the defaults are today. Binary fields are standard base64.
 *
 * The header (`format`, `version`, `rotatedAt`, `cipher`, `kdf`) is AES-GCM's associated data: changing any of it
 * makes decryption fail. `keyCheck` tells a wrong password from damage. `checksum` (SHA-256 of every other field)
 * catches accidental damage before any key is derived; it is not a security measure, GCM is.
 */
export interface VaultEnvelope {
  format: typeof ENVELOPE_FORMAT;
  version: typeof ENVELOPE_VERSION;
  /** When the vault was last sealed under a fresh salt (creation or rotation), ISO 8601. */
  rotatedAt: string;
  cipher: { algorithm: 'aes-256-gcm'; nonce: string; tagLength: number };
  kdf: EnvelopeKdf;
  /** HMAC-SHA-256 key-check value (see `vaultKeys`). */
  keyCheck: string;
  /** The encrypted payload followed by the GCM tag. */
  ciphertext: string;
  /** SHA-256 (hex) of the canonical JSON of every other field. */
  checksum: string;
}

/** An envelope before its checksum is computed. */
export type UnsummedEnvelope = Omit<VaultEnvelope, 'checksum'>;

/** The bytes AES-GCM authenticates besides the ciphertext: the canonical JSON of the header. */
export function envelopeHeader(envelope: UnsummedEnvelope): HostBytes {
  const { format, version, rotatedAt, cipher, kdf } = canonical(envelope);
  return utf8Bytes(JSON.stringify({ format, version, rotatedAt, cipher, kdf }));
}

/** Adds the checksum to an envelope. */
export function withChecksum(envelope: UnsummedEnvelope): VaultEnvelope {
  const { checksum: _ignored, ...rest } = envelope as VaultEnvelope;
  return { ...canonical(rest), checksum: checksumOf(rest) };
}

/** The file's bytes: indented JSON with a fixed field order and a final newline. */
export function serializeEnvelope(envelope: VaultEnvelope): HostBytes {
  return utf8Bytes(`${JSON.stringify(canonical(envelope), null, 2)}\n`);
}

/**
 * Reads and checks a vault file's bytes. Every byte counts: the bytes must be exactly what
 * {@link serializeEnvelope} writes for the values they hold, and the checksum must match, so a change anywhere
 * (even one JSON would ignore) is reported.
 *
 * @throws {VaultCorruptError} naming the first field found wrong.
 */
export function parseEnvelope(bytes: Uint8Array, path?: string): VaultEnvelope {
  const corrupt = (field: string, problem: string) =>
    new VaultCorruptError(field, `Vault${path ? ` ${path}` : ''} is corrupt: ${problem}`, path ? { path } : {});
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw corrupt('encoding', 'not UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt('json', 'not JSON');
  }
  const envelope = checkShape(value, corrupt);
  if (!bytesEqual(serializeEnvelope(envelope), bytes)) {
    throw corrupt('layout', 'the file was changed outside threatlib (it is not laid out as threatlib writes it)');
  }
  if (checksumOf(envelope) !== envelope.checksum) throw corrupt('checksum', 'the checksum does not match its content');
  const problem = kdfParamsProblem(envelope.kdf);
  if (problem) throw corrupt('kdf', problem);
  return envelope;
}

/** Decodes a base64 field known to be valid (checked by {@link parseEnvelope} or written by us). */
export function fromBase64(text: string): HostBytes {
  return decodeBase64(text);
}

type Corrupt = (field: string, problem: string) => VaultCorruptError;

function checkShape(value: unknown, corrupt: Corrupt): VaultEnvelope {
  const top = object(
    value,
    '(root)',
    ['format', 'version', 'rotatedAt', 'cipher', 'kdf', 'keyCheck', 'ciphertext', 'checksum'],
    corrupt,
  );
  if (top.format !== ENVELOPE_FORMAT) throw corrupt('format', 'not a threatlib vault');
  if (top.version !== ENVELOPE_VERSION) {
    throw corrupt(
      'version',
      `envelope version ${JSON.stringify(top.version)} is not one this threatlib reads (${ENVELOPE_VERSION})`,
    );
  }
  if (typeof top.rotatedAt !== 'string' || !isIsoDate(top.rotatedAt))
    throw corrupt('rotatedAt', 'expected an ISO 8601 time');

  const cipher = object(top.cipher, 'cipher', ['algorithm', 'nonce', 'tagLength'], corrupt);
  if (cipher.algorithm !== 'aes-256-gcm')
    throw corrupt('cipher.algorithm', `unknown cipher ${JSON.stringify(cipher.algorithm)}`);
  const tagLength = cipher.tagLength;
  if (typeof tagLength !== 'number' || !Number.isInteger(tagLength) || tagLength < 12 || tagLength > 16) {
    throw corrupt('cipher.tagLength', 'expected 12 to 16');
  }
  base64(cipher.nonce, 'cipher.nonce', { exactly: NONCE_LENGTH }, corrupt);

  const kdfKind = (top.kdf as { algorithm?: unknown } | null)?.algorithm;
  let kdf: EnvelopeKdf;
  if (kdfKind === 'argon2id') {
    const k = object(top.kdf, 'kdf', ['algorithm', 'version', 'memory', 'passes', 'parallelism', 'salt'], corrupt);
    if (k.version !== 19) throw corrupt('kdf.version', 'expected Argon2 version 19 (0x13)');
    kdf = {
      algorithm: 'argon2id',
      version: 19,
      memory: integer(k.memory, 'kdf.memory', corrupt),
      passes: integer(k.passes, 'kdf.passes', corrupt),
      parallelism: integer(k.parallelism, 'kdf.parallelism', corrupt),
      salt: base64(k.salt, 'kdf.salt', SALT_LIMITS, corrupt),
    };
  } else if (kdfKind === 'pbkdf2') {
    const k = object(top.kdf, 'kdf', ['algorithm', 'hash', 'iterations', 'salt'], corrupt);
    if (k.hash !== 'sha256') throw corrupt('kdf.hash', 'expected sha256');
    kdf = {
      algorithm: 'pbkdf2',
      hash: 'sha256',
      iterations: integer(k.iterations, 'kdf.iterations', corrupt),
      salt: base64(k.salt, 'kdf.salt', SALT_LIMITS, corrupt),
    };
  } else {
    throw corrupt('kdf.algorithm', `unknown key derivation ${JSON.stringify(kdfKind)}`);
  }

  const keyCheck = base64(top.keyCheck, 'keyCheck', { exactly: KEY_CHECK_LENGTH }, corrupt);
  const ciphertext = base64(top.ciphertext, 'ciphertext', { min: tagLength + 1, max: 64 * 1024 * 1024 }, corrupt);
  if (typeof top.checksum !== 'string' || !/^[0-9a-f]{64}$/.test(top.checksum)) {
    throw corrupt('checksum', 'expected 64 lower-case hex digits');
  }
  return {
    format: ENVELOPE_FORMAT,
    version: ENVELOPE_VERSION,
    rotatedAt: top.rotatedAt,
    cipher: { algorithm: 'aes-256-gcm', nonce: cipher.nonce as string, tagLength },
    kdf,
    keyCheck,
    ciphertext,
    checksum: top.checksum,
  };
}

function object(value: unknown, field: string, keys: readonly string[], corrupt: Corrupt): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt(field, 'expected an object');
  const actual = Object.keys(value).sort();
  const expected = [...keys].sort();
  if (actual.length !== expected.length || actual.some((key, i) => key !== expected[i])) {
    throw corrupt(field, `expected exactly the fields ${keys.join(', ')}`);
  }
  return value as Record<string, unknown>;
}

function integer(value: unknown, field: string, corrupt: Corrupt): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw corrupt(field, 'expected a whole number');
  return value;
}

function base64(
  value: unknown,
  field: string,
  length: { exactly?: number; min?: number; max?: number },
  corrupt: Corrupt,
): string {
  // A decoder that skips characters it does not know would let a changed byte go unnoticed: this one refuses them.
  if (typeof value !== 'string' || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)) {
    throw corrupt(field, 'expected base64');
  }
  if (!isCanonicalBase64(value)) throw corrupt(field, 'expected canonical base64');
  const n = decodeBase64(value).length;
  if (
    (length.exactly !== undefined && n !== length.exactly) ||
    (length.min !== undefined && n < length.min) ||
    (length.max !== undefined && n > length.max)
  ) {
    throw corrupt(field, `unexpected length ${n} bytes`);
  }
  return value;
}

function isIsoDate(text: string): boolean {
  const time = Date.parse(text);
  return Number.isFinite(time) && new Date(time).toISOString() === text;
}

/** The envelope's fields in the one order threatlib writes them. */
function canonical<T extends UnsummedEnvelope>(envelope: T): T {
  const kdf: EnvelopeKdf =
    envelope.kdf.algorithm === 'argon2id'
      ? {
          algorithm: 'argon2id',
          version: envelope.kdf.version,
          memory: envelope.kdf.memory,
          passes: envelope.kdf.passes,
          parallelism: envelope.kdf.parallelism,
          salt: envelope.kdf.salt,
        }
      : {
          algorithm: 'pbkdf2',
          hash: envelope.kdf.hash,
          iterations: envelope.kdf.iterations,
          salt: envelope.kdf.salt,
        };
  const out: UnsummedEnvelope & { checksum?: string } = {
    format: envelope.format,
    version: envelope.version,
    rotatedAt: envelope.rotatedAt,
    cipher: {
      algorithm: envelope.cipher.algorithm,
      nonce: envelope.cipher.nonce,
      tagLength: envelope.cipher.tagLength,
    },
    kdf,
    keyCheck: envelope.keyCheck,
    ciphertext: envelope.ciphertext,
  };
  const checksum = (envelope as Partial<VaultEnvelope>).checksum;
  if (checksum !== undefined) out.checksum = checksum;
  return out as T;
}

function checksumOf(envelope: UnsummedEnvelope): string {
  const { checksum: _ignored, ...rest } = canonical(envelope as VaultEnvelope);
  return toHex(sha256(utf8Bytes(JSON.stringify(rest))));
}
