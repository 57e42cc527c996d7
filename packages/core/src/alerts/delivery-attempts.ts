import type { Clock } from '../scheduler/clock.js';
import { retryDelay } from '../scheduler/retry-policy.js';
import type { DeliveryPolicy } from './delivery-policy.js';

/** What {@link deliverWithRetries} needs. */
export interface DeliveryAttemptsOptions {
  /** One attempt: calls the integration's `sendAlert`, which should give up when `signal` aborts. */
  send(signal: AbortSignal): Promise<unknown>;
  policy: DeliveryPolicy;
  clock: Clock;
  /** Aborting it (the client stopping) ends the attempt under way, and the wait for the next one. */
  signal: AbortSignal;
  /**
   * Aborting it ends the wait for the next attempt and starts no other, but lets the attempt under way finish (the
   * client stopping gives those a grace period). Default: `signal`.
   */
  drain?: AbortSignal;
  /** Called as each attempt ends, before the wait for the next one. */
  onAttempt?(attempt: AttemptOutcome): void;
  /** For the backoff's jitter (tests pass a fixed one). */
  random?: () => number;
}

/** How one attempt ended. */
export type AttemptOutcome =
  | { attempt: number; ok: true; result: unknown; at: number }
  | { attempt: number; ok: false; error: unknown; at: number };

/**
 * How a delivery ended: its last attempt's answer or error, and how many attempts were made. `stopped` when it
 * ended because `drain` or `signal` aborted while waiting for the next attempt (`error` is then their reason).
 */
export type DeliveryOutcome =
  | { ok: true; result: unknown; attempts: number }
  | { ok: false; error: unknown; attempts: number; stopped?: true };

/**
 * Delivers by calling `send` until it resolves, at most `policy.retryAttempts + 1` times, each attempt given
 * `policy.timeout` ms, waiting `retryDelay(n)` (the feeds' backoff with jitter) on `clock` between attempts. An error
 * with `isRetryable: false` (the convention of threatlib's errors) is not tried again. Never rejects: the outcome
 * says how it ended. Leaves no timer behind.
 */
export async function deliverWithRetries(options: DeliveryAttemptsOptions): Promise<DeliveryOutcome> {
  const { policy, clock, signal } = options;
  const drain = options.drain ?? signal;
  const attempts = policy.retryAttempts + 1;
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted || drain.aborted) {
      return { ok: false, error: stopReason(signal.aborted ? signal : drain), attempts: attempt - 1, stopped: true };
    }
    try {
      const result = await attemptOnce(options, policy.timeout);
      options.onAttempt?.({ attempt, ok: true, result, at: clock.now() });
      return { ok: true, result, attempts: attempt };
    } catch (error) {
      options.onAttempt?.({ attempt, ok: false, error, at: clock.now() });
      if (
        attempt >= attempts ||
        signal.aborted ||
        drain.aborted ||
        (error as { isRetryable?: unknown })?.isRetryable === false
      ) {
        return { ok: false, error, attempts: attempt };
      }
    }
    const waited = await wait(retryDelay(attempt, policy, options.random), clock, drain);
    if (!waited) return { ok: false, error: stopReason(drain), attempts: attempt, stopped: true };
  }
}

/** One call of `send`, failed after `timeout` ms or when `signal` aborts, whichever comes first. */
function attemptOnce(options: DeliveryAttemptsOptions, timeout: number): Promise<unknown> {
  const { clock, signal } = options;
  const attempt = new AbortController();
  return new Promise<unknown>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
      settle();
    };
    const giveUp = (reason: Error) => {
      attempt.abort(reason);
      finish(() => reject(reason));
    };
    const onStop = () => giveUp(stopReason(signal));
    const timer = clock.setTimeout(
      () => giveUp(new Error(`sendAlert did not settle within ${timeout} ms (the integration's timeout)`)),
      timeout,
    );
    signal.addEventListener('abort', onStop, { once: true });
    // On a later microtask, so that an integration that throws synchronously fails this attempt like one that rejects.
    Promise.resolve()
      .then(() => options.send(attempt.signal))
      .then(
        (result) => finish(() => resolve(result)),
        (error: unknown) => finish(() => reject(error ?? new Error('sendAlert rejected without a reason'))),
      );
  });
}

/** Waits `ms` on `clock`; false when `signal` aborted first. */
function wait(ms: number, clock: Clock, signal: AbortSignal): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onStop = () => {
      clock.clearTimeout(timer);
      resolve(false);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onStop);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onStop, { once: true });
  });
}

function stopReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the delivery was given up');
}
