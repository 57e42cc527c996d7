import { describe, expect, it } from 'vitest';
import { ProtectedBytes } from './protected-bytes.js';

const SECRET = 'vt-0123456789abcdef0123456789abcdef';

describe('ProtectedBytes', () => {
  it('obfuscated: holds the bytes masked, reveals them unmasked, zeroes the temporary copy after use', () => {
    const held = Buffer.from(SECRET);
    const bytes = new ProtectedBytes(held, { obfuscate: true, secureErase: true });
    expect(held.toString()).not.toBe(SECRET);
    expect(bytes.reveal()).toBe(SECRET);
    let seen: Buffer | undefined;
    bytes.use((plain) => {
      seen = plain;
      expect(plain.toString()).toBe(SECRET);
    });
    expect(seen?.every((b) => b === 0)).toBe(true);
    expect(held.toString()).not.toBe(SECRET);
  });

  it('erase zeroes the bytes with secureErase, and any later use throws', () => {
    const held = Buffer.from(SECRET);
    const bytes = new ProtectedBytes(held, { obfuscate: false, secureErase: true });
    bytes.erase();
    expect(held.every((b) => b === 0)).toBe(true);
    expect(bytes.erased).toBe(true);
    expect(() => bytes.reveal()).toThrow(/after erase/);
  });

  it('fromString copies into a Buffer of its own, not a slice of the shared pool', () => {
    const bytes = ProtectedBytes.fromString(SECRET, { obfuscate: false, secureErase: true });
    const copy = bytes.copy();
    expect(copy.toString()).toBe(SECRET);
    expect(bytes.length).toBe(SECRET.length);
    // A pooled Buffer is a view on an 8 KiB slab; ours must own exactly its bytes.
    bytes.use((plain) => expect(plain.buffer.byteLength).toBe(plain.length));
  });
});
