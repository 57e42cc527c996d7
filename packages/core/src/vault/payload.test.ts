import { describe, expect, it } from 'vitest';
import { decodePayload, encodePayload } from './payload.js';

describe('vault payload', () => {
  it('round-trips feed ids and keys, padded to 64 bytes', () => {
    const payload = encodePayload([
      { feed: 'feed_otx', key: Buffer.from('k1') },
      { feed: 'feed_scan', key: Buffer.from('a'.repeat(70)) },
    ]);
    expect(payload.length % 64).toBe(0);
    const decoded = decodePayload(payload);
    expect('entries' in decoded && decoded.entries.map((e) => [e.feed, e.key.toString()])).toEqual([
      ['feed_otx', 'k1'],
      ['feed_scan', 'a'.repeat(70)],
    ]);
  });

  it('reports a malformed payload instead of guessing', () => {
    const payload = encodePayload([{ feed: 'feed_otx', key: Buffer.from('k1') }]);
    expect(decodePayload(Buffer.from([2, 0, 0]))).toEqual({ problem: 'unknown payload version' });
    const truncated = payload.subarray(0, 8);
    expect(decodePayload(truncated)).toHaveProperty('problem');
    const dirtyPadding = Buffer.from(payload);
    dirtyPadding[payload.length - 1] = 1;
    expect(decodePayload(dirtyPadding)).toEqual({ problem: 'padding is not zero' });
  });
});
