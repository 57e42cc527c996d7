import { allocBytes, copyBytes, type HostBytes, utf8Bytes, utf8Text } from '../bytes/host-bytes.js';

/*
 * The plaintext inside a vault envelope. Binary rather than JSON so that keys go from the decrypted bytes straight
 * into buffers of their own, without passing through JavaScript strings (which cannot be erased):
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

/** Encodes entries into new bytes of their own; the caller zeroes them once encrypted. */
export function encodePayload(entries: readonly PayloadEntry[]): HostBytes {
  const ids = entries.map((entry) => utf8Bytes(entry.feed));
  let size = 3;
  entries.forEach((entry, i) => {
    size += 1 + (ids[i] as Uint8Array).length + 4 + entry.key.length;
  });
  const out = allocBytes(Math.ceil(size / PADDING_BLOCK) * PADDING_BLOCK);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint8(0, PAYLOAD_VERSION);
  view.setUint16(1, entries.length);
  let at = 3;
  entries.forEach((entry, i) => {
    const id = ids[i] as Uint8Array;
    view.setUint8(at, id.length);
    out.set(id, at + 1);
    at += 1 + id.length;
    view.setUint32(at, entry.key.length);
    out.set(entry.key, at + 4);
    at += 4 + entry.key.length;
  });
  return out;
}

/**
 * Decodes a payload into entries whose keys are fresh bytes (the caller owns them and may zero `payload`).
 * Returns a description of the problem instead when the payload is malformed.
 */
export function decodePayload(
  payload: Uint8Array,
): { entries: Array<{ feed: string; key: HostBytes }> } | { problem: string } {
  if (payload.length < 3 || payload[0] !== PAYLOAD_VERSION) return { problem: 'unknown payload version' };
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const count = view.getUint16(1);
  const entries: Array<{ feed: string; key: HostBytes }> = [];
  let at = 3;
  const fail = (problem: string) => {
    for (const entry of entries) entry.key.fill(0);
    return { problem };
  };
  for (let i = 0; i < count; i++) {
    if (at + 1 > payload.length) return fail('truncated entry');
    const idLength = view.getUint8(at);
    if (idLength === 0 || at + 1 + idLength + 4 > payload.length) return fail('truncated feed id');
    const feed = utf8Text(payload.subarray(at + 1, at + 1 + idLength));
    at += 1 + idLength;
    const keyLength = view.getUint32(at);
    if (keyLength === 0 || at + 4 + keyLength > payload.length) return fail('truncated key');
    const key = copyBytes(payload.subarray(at + 4, at + 4 + keyLength));
    at += 4 + keyLength;
    entries.push({ feed, key });
  }
  for (let i = at; i < payload.length; i++) if (payload[i] !== 0) return fail('padding is not zero');
  return { entries };
}
