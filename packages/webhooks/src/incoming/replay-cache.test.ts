import { describe, expect, it } from 'vitest';
import { ReplayCache } from './replay-cache.js';

describe('ReplayCache', () => {
  it('runs a message once: a repeat within its window is answered 204 without running', async () => {
    const cache = new ReplayCache(10);
    let runs = 0;
    const handle = async () => {
      runs++;
      return { status: 204 };
    };
    expect(await cache.once('m1', 0, 1_000, handle)).toEqual({ status: 204, replayed: false });
    expect(await cache.once('m1', 999, 1_000, handle)).toEqual({ status: 204, replayed: true });
    expect(runs).toBe(1);
    // Past the window the signature no longer verifies anyway; the id is forgotten.
    expect(await cache.once('m1', 1_000, 2_000, handle)).toEqual({ status: 204, replayed: false });
    expect(runs).toBe(2);
  });

  it('does not remember a message whose run failed, so the sender’s retry runs it again', async () => {
    const cache = new ReplayCache(10);
    const outcomes = [{ status: 500 }, { status: 404 }, { status: 204 }];
    let runs = 0;
    const handle = async () => outcomes[runs++] as { status: number };
    expect((await cache.once('m', 0, 1_000, handle)).status).toBe(500);
    expect((await cache.once('m', 0, 1_000, handle)).status).toBe(404);
    expect((await cache.once('m', 0, 1_000, handle)).status).toBe(204);
    expect((await cache.once('m', 0, 1_000, handle)).replayed).toBe(true);
    expect(runs).toBe(3);
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
    const first = cache.once('m', 0, 1_000, handle);
    const second = cache.once('m', 0, 1_000, handle);
    release?.();
    expect(await first).toEqual({ status: 503, replayed: false });
    expect(await second).toEqual({ status: 503, replayed: true });
    expect(runs).toBe(1);
  });

  it('keeps at most maxEntries ids, forgetting the oldest first', async () => {
    const cache = new ReplayCache(3);
    const ok = async () => ({ status: 204 });
    for (const id of ['a', 'b', 'c', 'd']) await cache.once(id, 0, 1_000, ok);
    expect(cache.size).toBe(3);
    expect((await cache.once('a', 0, 1_000, ok)).replayed).toBe(false);
    expect((await cache.once('d', 0, 1_000, ok)).replayed).toBe(true);
  });
});
