import { describe, expect, it } from 'vitest';
import { ReplayCache } from './replay-cache.js';

const ok = async () => ({ status: 204 });

describe('ReplayCache', () => {
  it('runs a message once: a repeat within its window is answered 204 without running', async () => {
    const cache = new ReplayCache(10);
    let runs = 0;
    const handle = async () => {
      runs++;
      return { status: 204 };
    };
    expect(await cache.once('m1', 'e', 0, 1_000, handle)).toEqual({ kind: 'ran', outcome: { status: 204 } });
    expect(await cache.once('m1', 'e', 999, 1_000, handle)).toEqual({ kind: 'replayed', outcome: { status: 204 } });
    expect(runs).toBe(1);
    // Past the window the signature no longer verifies anyway; the id is forgotten.
    expect((await cache.once('m1', 'e', 1_000, 2_000, handle)).kind).toBe('ran');
    expect(runs).toBe(2);
  });

  it('lets the sender’s retry of a message whose run failed run it again, for the same event', async () => {
    const cache = new ReplayCache(10);
    const outcomes = [{ status: 500 }, { status: 404 }, { status: 204 }];
    let runs = 0;
    const handle = async () => outcomes[runs++] as { status: number };
    expect(await cache.once('m', 'e', 0, 1_000, handle)).toEqual({ kind: 'ran', outcome: { status: 500 } });
    expect(await cache.once('m', 'e', 0, 1_000, handle)).toEqual({ kind: 'ran', outcome: { status: 404 } });
    expect(await cache.once('m', 'e', 0, 1_000, handle)).toEqual({ kind: 'ran', outcome: { status: 204 } });
    expect((await cache.once('m', 'e', 0, 1_000, handle)).kind).toBe('replayed');
    expect(runs).toBe(3);
  });

  it('refuses a message for another event than the one it was received for, whatever its first answer', async () => {
    const cache = new ReplayCache(10);
    let runs = 0;
    const failing = async () => {
      runs++;
      return { status: 500 };
    };
    expect((await cache.once('failed', 'a', 0, 1_000, failing)).kind).toBe('ran');
    expect(await cache.once('failed', 'b', 1, 1_000, failing)).toEqual({ kind: 'conflict', boundTo: 'a' });
    const refused = async () => {
      runs++;
      return { status: 400 };
    };
    expect((await cache.once('refused', 'a', 0, 1_000, refused)).kind).toBe('ran');
    expect(await cache.once('refused', 'b', 1, 1_000, refused)).toEqual({ kind: 'conflict', boundTo: 'a' });
    expect((await cache.once('handled', 'a', 0, 1_000, ok)).kind).toBe('ran');
    expect(await cache.once('handled', 'b', 1, 1_000, ok)).toEqual({ kind: 'conflict', boundTo: 'a' });
    expect(runs).toBe(2);
    // Until its window ends.
    expect((await cache.once('failed', 'b', 1_000, 2_000, failing)).kind).toBe('ran');
  });

  it('gives a repeat that arrives while the message is handled the first run’s answer, without running twice', async () => {
    const cache = new ReplayCache(10);
    let release: (() => void) | undefined;
    let runs = 0;
    const handle = () =>
      new Promise<{ status: number }>((resolve) => {
        runs++;
        release = () => resolve({ status: 503 });
      });
    const first = cache.once('m', 'e', 0, 1_000, handle);
    const second = cache.once('m', 'e', 0, 1_000, handle);
    // For another event it is refused at once, not run beside the first.
    expect(await cache.once('m', 'other', 0, 1_000, handle)).toEqual({ kind: 'conflict', boundTo: 'e' });
    release?.();
    expect(await first).toEqual({ kind: 'ran', outcome: { status: 503 } });
    expect(await second).toEqual({ kind: 'replayed', outcome: { status: 503 } });
    expect(runs).toBe(1);
  });

  it('keeps at most maxEntries messages, forgetting the oldest first, and says when one goes before its time', async () => {
    let early = 0;
    const cache = new ReplayCache(3, () => early++);
    for (const id of ['a', 'b', 'c', 'd']) await cache.once(id, 'e', 0, 1_000, ok);
    expect(cache.size).toBe(3);
    expect(early).toBe(1);
    expect((await cache.once('a', 'e', 0, 1_000, ok)).kind).toBe('ran');
    expect((await cache.once('d', 'e', 0, 1_000, ok)).kind).toBe('replayed');
    // Expired messages make room without being counted.
    for (const id of ['x', 'y', 'z']) await cache.once(id, 'e', 1_000, 2_000, ok);
    expect(early).toBe(2);
  });
});
