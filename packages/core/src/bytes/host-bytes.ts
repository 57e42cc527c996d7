/*
 * Bytes that run in Node.js and in a page. In Node.js every buffer made here is a `Buffer` (a Uint8Array subclass),
 * so code written against Uint8Array hands Node's callers what they always had (`toString('hex')`, `equals`); in a
 * page, where there is no `Buffer`, it is a plain Uint8Array. The type follows: `HostBytes` is `Buffer` where Node's
 * types are loaded, and `Uint8Array` where they are not.
 */

interface BufferLike {
  alloc(size: number): Uint8Array;
  from(arrayBuffer: ArrayBufferLike, byteOffset?: number, length?: number): Uint8Array;
}

/** `Buffer` in a program that has Node's types, `Uint8Array` in one that has not (a page's). */
export type HostBytes = typeof globalThis extends { Buffer: { alloc(size: number): infer B } } ? B : Uint8Array;

const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** `size` zero bytes of their own (never a slice of a shared pool, so zeroing them zeroes the only copy). */
export function allocBytes(size: number): HostBytes {
  return (NodeBuffer ? NodeBuffer.alloc(size) : new Uint8Array(size)) as HostBytes;
}

/** A view (not a copy) of `bytes` as {@link HostBytes}. */
export function hostView(bytes: Uint8Array): HostBytes {
  return (NodeBuffer ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes) as HostBytes;
}

/** A copy of `bytes` in a buffer of its own. */
export function copyBytes(bytes: Uint8Array): HostBytes {
  const out = allocBytes(bytes.length);
  out.set(bytes);
  return out;
}

/** Whether `a` and `b` hold the same bytes (not in constant time: for data that is not secret). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether `a` and `b` hold the same bytes, in a time that depends on their length only, as Node's
 * `crypto.timingSafeEqual` does (for comparing a computed MAC with a stored one).
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

/** `length` random bytes from the platform's CSPRNG (`crypto.getRandomValues`, in Node.js and in pages). */
export function randomBytes(length: number): HostBytes {
  const out = allocBytes(length);
  // getRandomValues fills at most 65,536 bytes a call.
  for (let at = 0; at < length; at += 65_536) {
    globalThis.crypto.getRandomValues(out.subarray(at, Math.min(length, at + 65_536)));
  }
  return out;
}

const encoder = new TextEncoder();

/** `text` as UTF-8, in a buffer of its own. */
export function utf8Bytes(text: string): HostBytes {
  return hostView(encoder.encode(text));
}

/** UTF-8 bytes as text (malformed sequences become U+FFFD, as `Buffer#toString` does). */
export function utf8Text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** Bytes as lower-case hex. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/**
 * `bytes` as WebCrypto's types take it: a view of an ArrayBuffer (a view of a SharedArrayBuffer is copied first).
 */
export function bufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  if (bytes.buffer instanceof ArrayBuffer) return bytes as Uint8Array<ArrayBuffer>;
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

/**
 * The number of bytes of `text` in UTF-8, as `Buffer.byteLength(text, 'utf8')` counts them (a lone surrogate counts
 * as the three bytes of U+FFFD that replace it), without encoding it and in a page as in Node.js.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
