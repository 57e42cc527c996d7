import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from './concurrency-limiter.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimiter', () => {
  it('never runs more than the limit, and runs everything', async () => {
    const limiter = new ConcurrencyLimiter(3);
    let active = 0;
    let peak = 0;
    const gates = Array.from({ length: 10 }, deferred);
    const done = gates.map((gate, i) =>
      limiter.run(async () => {
        active += 1;
        peak = Math.max(peak, active);
        await gate.promise;
        active -= 1;
        return i;
      }),
    );
    await tick();
    expect(limiter.running).toBe(3);
    expect(limiter.waiting).toBe(7);
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(done)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(3);
  });

  it('applies a new limit to queued work without dropping any', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gates = Array.from({ length: 6 }, deferred);
    const started: number[] = [];
    const done = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i);
        await gate.promise;
      }),
    );
    await tick();
    expect(started).toEqual([0]);
    limiter.setLimit(4);
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    limiter.setLimit(1);
    gates[0]?.resolve();
    gates[1]?.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const gate of gates) gate.resolve();
    await Promise.all(done);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('lets an aborted task leave the queue', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const controller = new AbortController();
    const second = limiter.run(async () => 'ran', controller.signal);
    controller.abort(new Error('caller gave up'));
    await expect(second).rejects.toThrow('caller gave up');
    expect(limiter.waiting).toBe(0);
    gate.resolve();
    await first;
  });
});
