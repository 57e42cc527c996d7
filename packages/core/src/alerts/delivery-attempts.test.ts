import { describe, expect, it } from 'vitest';
import { ManualClock } from '../scheduler/clock.js';
import { type AttemptOutcome, deliverWithRetries } from './delivery-attempts.js';
import type { DeliveryPolicy } from './delivery-policy.js';

const policy = (over: Partial<DeliveryPolicy> = {}): DeliveryPolicy => ({
  retryAttempts: 3,
  timeout: 10_000,
  retryDelay: 1_000,
  backoffMultiplier: 2,
  ...over,
});

/** `random` 1 makes the jitter give the whole base delay, so the waits are exact. */
const noJitter = () => 1;

describe('deliverWithRetries', () => {
  it('retries with the backoff of performance.retryDelay × backoffMultiplier^(n−1) on the clock', async () => {
    const clock = new ManualClock(0);
    const attemptsAt: number[] = [];
    const outcome = deliverWithRetries({
      send: async () => {
        attemptsAt.push(clock.now());
        if (attemptsAt.length < 4) throw new Error(`refused ${attemptsAt.length}`);
        return 'ok';
      },
      policy: policy(),
      clock,
      signal: new AbortController().signal,
      random: noJitter,
    });
    await clock.advance(7_000);
    await expect(outcome).resolves.toEqual({ ok: true, result: 'ok', attempts: 4 });
    expect(attemptsAt).toEqual([0, 1_000, 3_000, 7_000]);
    expect(clock.pending).toBe(0);
  });

  it('gives up after retryAttempts + 1 attempts with the last error, reporting each attempt', async () => {
    const clock = new ManualClock(0);
    const seen: AttemptOutcome[] = [];
    let n = 0;
    const outcome = deliverWithRetries({
      send: async () => {
        n += 1;
        throw new Error(`refused ${n}`);
      },
      policy: policy({ retryAttempts: 2 }),
      clock,
      signal: new AbortController().signal,
      onAttempt: (a) => seen.push(a),
      random: noJitter,
    });
    await clock.advance(60_000);
    const result = await outcome;
    expect(result).toMatchObject({ ok: false, attempts: 3, error: new Error('refused 3') });
    expect(seen.map((a) => [a.attempt, a.ok])).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
    expect(clock.pending).toBe(0);
  });

  it('does not try again after an error marked isRetryable: false', async () => {
    const clock = new ManualClock(0);
    let n = 0;
    const outcome = await deliverWithRetries({
      send: async () => {
        n += 1;
        throw Object.assign(new Error('HTTP 400: bad alert'), { isRetryable: false });
      },
      policy: policy(),
      clock,
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({ ok: false, attempts: 1 });
    expect(n).toBe(1);
  });

  it('fails an attempt that outlasts the timeout, aborting its signal, and counts a synchronous throw', async () => {
    const clock = new ManualClock(0);
    const signals: AbortSignal[] = [];
    const outcome = deliverWithRetries({
      send: (signal) => {
        signals.push(signal);
        if (signals.length === 2) throw new Error('thrown synchronously');
        return new Promise(() => {});
      },
      policy: policy({ retryAttempts: 1, timeout: 500 }),
      clock,
      signal: new AbortController().signal,
      random: noJitter,
    });
    await clock.advance(1_500);
    const result = await outcome;
    expect(result).toMatchObject({ ok: false, attempts: 2, error: new Error('thrown synchronously') });
    expect(signals[0]?.aborted).toBe(true);
    expect(String(signals[0]?.reason)).toMatch(/did not settle within 500 ms/);
    expect(clock.pending).toBe(0);
  });

  it('drain ends the wait for a retry at once but lets an attempt under way finish; signal aborts it', async () => {
    const clock = new ManualClock(0);
    const drain = new AbortController();
    const waiting = deliverWithRetries({
      send: async () => {
        throw new Error('down');
      },
      policy: policy({ retryDelay: 60_000 }),
      clock,
      signal: new AbortController().signal,
      drain: drain.signal,
    });
    await clock.advance(0);
    drain.abort(new Error('stopping'));
    await expect(waiting).resolves.toMatchObject({ ok: false, attempts: 1, stopped: true });
    expect(clock.pending).toBe(0);

    const stop = new AbortController();
    let finish: (value: string) => void = () => {};
    const underWay = deliverWithRetries({
      send: () => new Promise<string>((resolve) => (finish = resolve)),
      policy: policy(),
      clock,
      signal: stop.signal,
      drain: AbortSignal.abort(),
    });
    // Already drained: no attempt starts.
    await expect(underWay).resolves.toMatchObject({ ok: false, attempts: 0, stopped: true });

    const draining = new AbortController();
    const finishing = deliverWithRetries({
      send: () => new Promise<string>((resolve) => (finish = resolve)),
      policy: policy(),
      clock,
      signal: stop.signal,
      drain: draining.signal,
    });
    await clock.advance(0);
    draining.abort();
    finish('made it');
    await expect(finishing).resolves.toEqual({ ok: true, result: 'made it', attempts: 1 });

    const aborted = deliverWithRetries({
      send: () => new Promise<string>(() => {}),
      policy: policy(),
      clock,
      signal: stop.signal,
    });
    await clock.advance(0);
    stop.abort(new Error('client stopped'));
    await expect(aborted).resolves.toMatchObject({ ok: false, attempts: 1, error: new Error('client stopped') });
    expect(clock.pending).toBe(0);
  });
});
