/**
 * What {@link untilAborted} needs of an abort signal: a DOM `AbortSignal`, or an SDK's look-alike (the Azure SDKs'
 * `AbortSignalLike`, whose `reason` may be missing).
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: what is awaited cannot hold a
 * cancelled call, even when it ignores the signal itself (a third-party feed, a list still loading, an SDK's token
 * request). Whatever `work` settles with after that is dropped, never an unhandled rejection.
 *
 * @example
 * ```ts
 * const socket = await untilAborted(connecting, signal); // rejects with signal.reason once it aborts
 * ```
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignalLike | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(reasonOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(reasonOf(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The signal's reason; a DOM `AbortSignal` always has one, a look-alike may not. */
function reasonOf(signal: AbortSignalLike): unknown {
  return signal.reason ?? new Error('aborted');
}
