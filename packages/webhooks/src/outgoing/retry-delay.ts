/** What decides the wait before the next attempt. */
export interface RetryDelayInput {
  /** Attempts made so far (1 after the first). */
  attempts: number;
  /** Waits before each retry, in ms. */
  schedule: readonly number[];
  /** Fraction a wait may vary either way. */
  jitter: number;
  /** Longest wait, in ms. */
  maxDelayMs: number;
  /** What the receiver asked for with `Retry-After`, in ms. */
  retryAfterMs?: number | undefined;
  /** A number in [0, 1) (tests pass a fixed one). */
  random: () => number;
}

/**
 * The wait before the next attempt, in ms, or undefined when the schedule is spent (the delivery has finally
 * failed): the schedule's entry for this retry, varied by the jitter, never less than a receiver's `Retry-After`,
 * and never more than `maxDelayMs`.
 */
export function retryDelay(input: RetryDelayInput): number | undefined {
  const base = input.schedule[input.attempts - 1];
  if (base === undefined) return undefined;
  const varied = base * (1 + input.jitter * (2 * input.random() - 1));
  const wanted = Math.max(varied, input.retryAfterMs ?? 0);
  return Math.round(Math.min(input.maxDelayMs, Math.max(0, wanted)));
}
