import type { Clock } from '../scheduler/clock.js';

/** Thrown by {@link withinTime} when the work did not finish in time. */
class TimeLimitExceeded extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'TimeLimitExceeded';
  }
}

/**
 * Settles as `work` does, or rejects with {@link TimeLimitExceeded} after `ms` on `clock`, whichever comes first. The
 * work itself is not cancelled: a health check must answer in time even when what it probes hangs.
 */
export function withinTime<T>(work: Promise<T>, ms: number, clock: Clock, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Unref'd: a probe that hangs must not keep a finished process alive either.
    const timer = clock.setTimeout(() => reject(new TimeLimitExceeded(what, ms)), ms, { unref: true });
    work.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}
