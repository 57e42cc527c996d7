/*
 * The plaintext inside a vault envelope. Binary rather than JSON so that keys go from the decrypted bytes straight
 * into Buffers of their own, without passing through JavaScript strings (which cannot be erased):
 *
 *   u8 version (1) | u16 count | count x (u8 id length | id UTF-8 | u32 key length | key bytes) | zero padding
 *
 * Integers are big-endian. The padding rounds the payload up to a multiple of 64 bytes, so the ciphertext's length
 * reveals the keys' total length only to that granularity.
 */

const PAYLOAD_VERSION = 1;
const PADDING_BLOCK = 64;

/** One feed's key, as bytes. */
export interface PayloadEntry {
  feed: string;
  key: Uint8Array;
}

/** Encodes entries into a new Buffer; the caller zeroes it once encrypted. */
export function encodePayload(entries: readonly PayloadEntry[]): Buffer {
  const ids = entries.map((entry) => Buffer.from(entry.feed, 'utf8'));
  let size = 3;
  entries.forEach((entry, i) => {
    size += 1 + (ids[i] as Buffer).length + 4 + entry.key.length;
  });
  const out = Buffer.alloc(Math.ceil(size / PADDING_BLOCK) * PADDING_BLOCK);
  out.writeUInt8(PAYLOAD_VERSION, 0);
  out.writeUInt16BE(entries.length, 1);
  let at = 3;
  entries.forEach((entry, i) => {
    const id = ids[i] as Buffer;
    out.writeUInt8(id.length, at);
    id.copy(out, at + 1);
    at += 1 + id.length;
    out.writeUInt32BE(entry.key.length, at);
    out.set(entry.key, at + 4);
    at += 4 + entry.key.length;
  });
  return out;
}

/**
 * Decodes a payload into entries whose keys are fresh Buffers (the caller owns them and may zero `payload`).
 * Returns a description of the problem instead when the payload is malformed.
 */
export function decodePayload(
  payload: Buffer,
): { entries: Array<{ feed: string; key: Buffer }> } | { problem: string } {
  if (payload.length < 3 || payload[0] !== PAYLOAD_VERSION) return { problem: 'unknown payload version' };
  const count = payload.readUInt16BE(1);
  const entries: Array<{ feed: string; key: Buffer }> = [];
  let at = 3;
  const fail = (problem: string) => {
    for (const entry of entries) entry.key.fill(0);
    return { problem };
  };
  for (let i = 0; i < count; i++) {
    if (at + 1 > payload.length) return fail('truncated entry');
    const idLength = payload.readUInt8(at);
    if (idLength === 0 || at + 1 + idLength + 4 > payload.length) return fail('truncated feed id');
    const feed = payload.toString('utf8', at + 1, at + 1 + idLength);
    at += 1 + idLength;
    const keyLength = payload.readUInt32BE(at);
    if (keyLength === 0 || at + 4 + keyLength > payload.length) return fail('truncated key');
    const key = Buffer.alloc(keyLength);
    payload.copy(key, 0, at + 4, at + 4 + keyLength);
    at += 4 + keyLength;
    entries.push({ feed, key });
  }
  for (let i = at; i < payload.length; i++) if (payload[i] !== 0) return fail('padding is not zero');
  return { entries };
}
