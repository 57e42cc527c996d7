import { describe, expect, it } from 'vitest';
import { PageCursors, queryDigest } from './page-cursor.js';
import { TaxiiError } from './taxii-error.js';

const KEY = 'a-key-of-at-least-thirty-two-bytes-long!';

function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(TaxiiError);
    expect((error as TaxiiError).status).toBe(400);
    return (error as TaxiiError).message;
  }
  throw new Error('the cursor was accepted');
}

describe('next cursors', () => {
  const query = queryDigest(['objects', 'collection-1', [null]]);

  it('carry where a page ended, and any server with the same key reads them', () => {
    let now = 1_000;
    const cursors = new PageCursors({ key: KEY, ttlMs: 60_000, now: () => now });
    const cursor = cursors.issue({ query, after: 1_700_000_000_123_456 });
    const elsewhere = new PageCursors({ key: Buffer.from(KEY), ttlMs: 60_000, now: () => now });
    expect(elsewhere.read(cursor, query)).toBe(1_700_000_000_123_456);
    now += 60_000;
    expect(cursors.read(cursor, query)).toBe(1_700_000_000_123_456);
  });

  it('refuse a cursor altered, made with another key, expired, or used for another query, saying which', () => {
    let now = 0;
    const cursors = new PageCursors({ key: KEY, ttlMs: 60_000, now: () => now });
    const cursor = cursors.issue({ query, after: 5 });
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify([1, query, 0, 10 ** 15])).toString('base64url');
    for (const bad of [
      `${forged}.${mac}`,
      `${payload}.${mac.slice(0, -2)}AA`,
      payload,
      '',
      '.',
      'x'.repeat(1000),
      '😀.😀',
    ]) {
      expect(refusal(() => cursors.read(bad, query))).toMatch(/not a cursor this server issued/);
    }
    const otherKey = new PageCursors({ now: () => now, ttlMs: 60_000 });
    expect(refusal(() => otherKey.read(cursor, query))).toMatch(/not a cursor this server issued/);
    expect(refusal(() => cursors.read(cursor, queryDigest(['objects', 'collection-2', [null]])))).toMatch(
      /issued for another query/,
    );
    now = 60_001;
    expect(refusal(() => cursors.read(cursor, query))).toMatch(/expired at 1970-01-01T00:01:00\.000Z/);
  });

  it('refuse a key shorter than 32 bytes and a lifetime that is not a positive whole number', () => {
    expect(() => new PageCursors({ key: 'short', ttlMs: 1, now: Date.now })).toThrow(/at least 32 bytes; got 5/);
    expect(() => new PageCursors({ ttlMs: 0, now: Date.now })).toThrow(/cursorTtlMs/);
  });
});
