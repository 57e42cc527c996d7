import { describe, expect, it } from 'vitest';
import { type AbortSignalLike, untilAborted } from './until-aborted.js';

describe('untilAborted', () => {
  it('settles with the work while the signal has not aborted', async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error('refused')), controller.signal)).rejects.toThrow('refused');
    await expect(untilAborted(Promise.resolve(7), undefined)).resolves.toBe(7);
  });

  it("rejects with the signal's reason as soon as it aborts, dropping what the work does later", async () => {
    const controller = new AbortController();
    let fail: (error: Error) => void = () => {};
    const work = new Promise<number>((_resolve, reject) => {
      fail = reject;
    });
    const waiting = untilAborted(work, controller.signal);
    controller.abort(new Error('timed out'));
    await expect(waiting).rejects.toThrow('timed out');
    fail(new Error('late')); // handled: no unhandled rejection fails the run
  });

  it('rejects at once when the signal has already aborted', async () => {
    await expect(untilAborted(new Promise(() => {}), AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it("takes an SDK's look-alike signal, whose abort may carry no reason", async () => {
    const listeners = new Set<() => void>();
    const signal: AbortSignalLike & { aborted: boolean } = {
      aborted: false,
      addEventListener: (_type, listener) => listeners.add(listener),
      removeEventListener: (_type, listener) => listeners.delete(listener),
    };
    const waiting = untilAborted(new Promise(() => {}), signal);
    signal.aborted = true;
    for (const listener of listeners) listener();
    await expect(waiting).rejects.toThrow('aborted');
  });
});
