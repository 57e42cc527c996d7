import { describe, expect, it } from 'vitest';
import { aesGcmDecrypt, aesGcmEncrypt, newNonce } from './aead.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// "The Galois/Counter Mode of Operation (GCM)", McGrew & Viega (revised 2005), appendix B: the 256-bit-key test
// cases with a 96-bit IV. Case 15 has no associated data; case 16 has 20 bytes of it and a 60-byte plaintext.
const K_ZERO = hex('00'.repeat(32));
const IV_ZERO = hex('00'.repeat(12));
const K_F = hex('feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308');
const IV_CAFE = hex('cafebabefacedbaddecaf888');
const P64 = hex(`d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72
                 1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b391aafd255`);
const C64 = hex(`522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa
                 8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662898015ad`);

const CASES = [
  {
    name: 'test case 13',
    key: K_ZERO,
    iv: IV_ZERO,
    p: hex(''),
    a: hex(''),
    c: hex(''),
    t: hex('530f8afbc74536b9a963b4f1c4cb738b'),
  },
  {
    name: 'test case 14',
    key: K_ZERO,
    iv: IV_ZERO,
    p: hex('00'.repeat(16)),
    a: hex(''),
    c: hex('cea7403d4d606b6e074ec5d3baf39d18'),
    t: hex('d0d1c8a799996bf0265b98b5d48ab919'),
  },
  {
    name: 'test case 15',
    key: K_F,
    iv: IV_CAFE,
    p: P64,
    a: hex(''),
    c: C64,
    t: hex('b094dac5d93471bdec1a502270e3cc6c'),
  },
  {
    name: 'test case 16',
    key: K_F,
    iv: IV_CAFE,
    p: P64.subarray(0, 60),
    a: hex('feedfacedeadbeeffeedfacedeadbeef abaddad2'),
    c: C64.subarray(0, 60),
    t: hex('76fc6ece0f4e1768cddf8853bb2d551b'),
  },
];

describe('AES-256-GCM known answers (GCM specification, test cases 13-16)', () => {
  it.each(CASES)('$name encrypts to the published ciphertext and tag', async ({ key, iv, p, a, c, t }) => {
    expect((await aesGcmEncrypt(key, iv, p, a, 16)).toString('hex')).toBe(Buffer.concat([c, t]).toString('hex'));
  });

  it.each(CASES)('$name decrypts back to the plaintext', async ({ key, iv, p, a, c, t }) => {
    expect((await aesGcmDecrypt(key, iv, Buffer.concat([c, t]), a, 16))?.toString('hex')).toBe(p.toString('hex'));
  });

  it('a 12-byte tag is the published tag truncated (what tagSize 12 stores)', async () => {
    const { key, iv, p, a, c, t } = CASES[3] as (typeof CASES)[number];
    expect((await aesGcmEncrypt(key, iv, p, a, 12)).toString('hex')).toBe(
      Buffer.concat([c, t.subarray(0, 12)]).toString('hex'),
    );
  });
});

describe('AES-256-GCM failures', () => {
  const { key, iv, p, a, c, t } = CASES[3] as (typeof CASES)[number];
  const sealed = Buffer.concat([c, t]);

  it('returns nothing, not a partial plaintext, when any byte of ciphertext, tag, nonce or AAD changes', async () => {
    for (let i = 0; i < sealed.length; i++) {
      const bad = Buffer.from(sealed);
      bad[i] = (bad[i] as number) ^ 0x01;
      expect(await aesGcmDecrypt(key, iv, bad, a, 16)).toBeUndefined();
    }
    const badIv = Buffer.from(iv);
    badIv[0] = (badIv[0] as number) ^ 0x80;
    expect(await aesGcmDecrypt(key, badIv, sealed, a, 16)).toBeUndefined();
    const badAad = Buffer.from(a);
    badAad[19] = (badAad[19] as number) ^ 0x01;
    expect(await aesGcmDecrypt(key, iv, sealed, badAad, 16)).toBeUndefined();
    expect(await aesGcmDecrypt(key, iv, sealed.subarray(0, 10), a, 16)).toBeUndefined();
  });

  it('refuses keys, nonces and tag lengths the vault never uses', async () => {
    await expect(aesGcmEncrypt(key.subarray(0, 16), iv, p, a, 16)).rejects.toThrow(/32-byte key/);
    await expect(aesGcmEncrypt(key, iv.subarray(0, 8), p, a, 16)).rejects.toThrow(/12-byte nonces/);
    await expect(aesGcmEncrypt(key, iv, p, a, 8)).rejects.toThrow(/12 to 16 bytes/);
  });

  it('draws a different random nonce every time', () => {
    const nonces = new Set(Array.from({ length: 1000 }, () => newNonce().toString('hex')));
    expect(nonces.size).toBe(1000);
    expect(newNonce()).toHaveLength(12);
  });
});
