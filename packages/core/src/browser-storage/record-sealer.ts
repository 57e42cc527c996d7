import { fromBase64, toBase64 } from '../bytes/base64.js';
import { bufferSource, constantTimeEqual, randomBytes, toHex, utf8Bytes, utf8Text } from '../bytes/host-bytes.js';
import { BrowserStorageError } from './browser-storage-error.js';
import type { RecordBackend, StoreName } from './record-backend.js';

/**
 * How records are written: the key a record is stored under, and its value as stored. Without an `encryptionKey`
 * both are the plain text; with one, see {@link encryptedSealer}.
 */
export interface RecordSealer {
  /** Whether values are encrypted (and keys hashed). */
  readonly encrypted: boolean;
  /** The key `key` of `store` is stored under. */
  storedKey(store: StoreName, key: string): Promise<string>;
  /** `text` as stored under `storedKey` of `store`. */
  seal(store: StoreName, storedKey: string, text: string): Promise<string>;
  /** The text of a stored value, or undefined when it does not decrypt (changed, or moved under another key). */
  open(store: StoreName, storedKey: string, stored: string): Promise<string | undefined>;
}

/** Records as they are: keys and values in clear. */
export const plainSealer: RecordSealer = {
  encrypted: false,
  storedKey: async (_store, key) => key,
  seal: async (_store, _key, text) => text,
  open: async (_store, _key, stored) => stored,
};

/** What the `meta` store keeps about the encryption: in clear, and secret-free. */
interface KeyRecord {
  kdf: 'pbkdf2-sha256';
  iterations: number;
  /** Base64 of the random salt. */
  salt: string;
  /** Base64 of HMAC-SHA-256(MAC key, CHECK_MESSAGE): tells a wrong encryptionKey from damaged records. */
  check: string;
}

const KEY_RECORD = 'encryption';
const CHECK_MESSAGE = 'threatlib-browser-storage/1 key check';
const NONCE_LENGTH = 12;

type CryptoKeyOf = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/**
 * The sealer of a storage opened with `encryptionKey`. A 512-bit secret is derived from `encryptionKey` with
 * PBKDF2-SHA-256 (WebCrypto) and a 16-byte random salt kept in the `meta` store; its halves become an AES-256-GCM
 * key and an HMAC-SHA-256 key, neither extractable. A record's key is the hex HMAC of `<store>\0<key>`, so a cache key
 * (which holds the indicator) or an alert id never sits in storage in clear; its value is base64 of a fresh 12-byte
 * nonce followed by the AES-GCM ciphertext and tag, with the store's name and the record's key as associated data,
 * so a value copied under another key does not decrypt.
 *
 * @throws {BrowserStorageError} without WebCrypto (not a secure context), or when `encryptionKey` is not the one the
 *   database was written with.
 */
export async function encryptedSealer(
  backend: RecordBackend,
  encryptionKey: string,
  iterations: number,
  where: { storage: string; dbName: string },
): Promise<RecordSealer> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new BrowserStorageError(
      where.storage,
      where.dbName,
      'encrypted storage needs WebCrypto (crypto.subtle), which a page has only in a secure context (https:// or localhost)',
    );
  }
  const damaged = () =>
    new BrowserStorageError(where.storage, where.dbName, `the encryption record of ${where.dbName} is damaged`);
  const stored = await backend.get('meta', KEY_RECORD);
  let record = stored === undefined ? undefined : parseKeyRecord(stored);
  if (stored !== undefined && !record) throw damaged();
  let keys: DerivedKeys;
  if (record) {
    keys = await deriveKeys(subtle, encryptionKey, record);
  } else {
    // A fresh database: a new salt, kept only if no other store or tab keeps one first (the verdict cache and the
    // alert store of one client open the same database at once). The loser derives again from the winner's salt,
    // so that every record of the database is sealed under one key.
    const fresh: Omit<KeyRecord, 'check'> = { kdf: 'pbkdf2-sha256', iterations, salt: toBase64(randomBytes(16)) };
    keys = await deriveKeys(subtle, encryptionKey, fresh);
    const mine: KeyRecord = { ...fresh, check: toBase64(keys.check) };
    const kept = await backend.addIfAbsent('meta', KEY_RECORD, JSON.stringify(mine));
    record = parseKeyRecord(kept);
    if (!record) throw damaged();
    if (record.salt !== mine.salt || record.iterations !== mine.iterations) {
      keys = await deriveKeys(subtle, encryptionKey, record);
    }
  }
  if (!constantTimeEqual(keys.check, fromBase64(record.check))) {
    throw new BrowserStorageError(
      where.storage,
      where.dbName,
      `${where.dbName} was written with another encryptionKey: its records cannot be read with this one`,
    );
  }
  const { aesKey, mac } = keys;
  const aad = (store: StoreName, storedKey: string) => bufferSource(utf8Bytes(`${store}\0${storedKey}`));
  return {
    encrypted: true,
    storedKey: async (store, key) => toHex(await mac(`${store}\0${key}`)),
    async seal(store, storedKey, text) {
      const nonce = randomBytes(NONCE_LENGTH);
      const sealed = new Uint8Array(
        await subtle.encrypt(
          { name: 'AES-GCM', iv: bufferSource(nonce), additionalData: aad(store, storedKey) },
          aesKey,
          bufferSource(utf8Bytes(text)),
        ),
      );
      const out = new Uint8Array(NONCE_LENGTH + sealed.length);
      out.set(nonce);
      out.set(sealed, NONCE_LENGTH);
      return toBase64(out);
    },
    async open(store, storedKey, value) {
      try {
        const bytes = fromBase64(value);
        if (bytes.length < NONCE_LENGTH + 16) return undefined;
        const plain = await subtle.decrypt(
          { name: 'AES-GCM', iv: bufferSource(bytes.subarray(0, NONCE_LENGTH)), additionalData: aad(store, storedKey) },
          aesKey,
          bufferSource(bytes.subarray(NONCE_LENGTH)),
        );
        return utf8Text(new Uint8Array(plain));
      } catch {
        return undefined;
      }
    },
  };
}

/** The keys of a sealer, and the check value they give. */
interface DerivedKeys {
  aesKey: CryptoKeyOf;
  mac: (text: string) => Promise<Uint8Array>;
  check: Uint8Array;
}

/** The AES-GCM and HMAC keys PBKDF2-SHA-256 derives from `encryptionKey` with the salt and count of `record`. */
async function deriveKeys(
  subtle: typeof crypto.subtle,
  encryptionKey: string,
  record: Pick<KeyRecord, 'salt' | 'iterations'>,
): Promise<DerivedKeys> {
  const password = await subtle.importKey('raw', bufferSource(utf8Bytes(encryptionKey)), 'PBKDF2', false, [
    'deriveBits',
  ]);
  const bits = new Uint8Array(
    await subtle.deriveBits(
      { name: 'PBKDF2', hash: 'SHA-256', salt: bufferSource(fromBase64(record.salt)), iterations: record.iterations },
      password,
      512,
    ),
  );
  let aesKey: CryptoKeyOf;
  let macKey: CryptoKeyOf;
  try {
    aesKey = await subtle.importKey('raw', bits.subarray(0, 32), 'AES-GCM', false, ['encrypt', 'decrypt']);
    macKey = await subtle.importKey('raw', bits.subarray(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  } finally {
    bits.fill(0);
  }
  const mac = async (text: string) => new Uint8Array(await subtle.sign('HMAC', macKey, bufferSource(utf8Bytes(text))));
  return { aesKey, mac, check: await mac(CHECK_MESSAGE) };
}

function parseKeyRecord(text: string): KeyRecord | undefined {
  try {
    const record = JSON.parse(text) as Partial<KeyRecord>;
    if (
      record.kdf === 'pbkdf2-sha256' &&
      Number.isSafeInteger(record.iterations) &&
      typeof record.salt === 'string' &&
      typeof record.check === 'string'
    ) {
      return record as KeyRecord;
    }
  } catch {}
  return undefined;
}
