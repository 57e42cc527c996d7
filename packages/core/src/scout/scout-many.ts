import { ThreatlibError } from '../errors/threatlib-error.js';
import { untilAborted } from './until-aborted.js';

/** One outcome of `scoutMany`: the result for an input, or why that input could not be scouted. */
export type ScoutManyItem<T> =
  | { input: string; ok: true; result: T }
  | { input: string; ok: false; error: { code: string; message: string } };

/** Progress of a `scoutMany` run, reported after every completed input. */
export interface ScoutProgress {
  /** Inputs finished so far (successes and failures). */
  completed: number;
  /** Of those, inputs that failed (an invalid indicator, say). */
  failed: number;
  /** Inputs being worked on now. */
  inFlight: number;
}

/** Options of `scoutMany`. */
export interface ScoutManyOptions {
  /** Called after every completed input. */
  onProgress?: (progress: ScoutProgress) => void;
  /** Inputs worked on at once (default: twice the client's concurrency, so feeds are never idle). */
  window?: number;
  /**
   * Cancels the run: the iteration ends at once with the signal's reason (also while it waits for the next input),
   * and the lookups under way are cancelled.
   */
  signal?: AbortSignal;
}

/**
 * Streams `work(input)` over `inputs` as results complete, pulling a new input only when fewer than `window` are in
 * flight and the consumer has taken the previous result: memory stays bounded by the window whatever the number of
 * inputs. An input whose work throws a threatlib error (an invalid indicator) yields `ok: false` and the run goes
 * on; any other exception ends the iteration.
 */
export async function* streamScouts<T>(
  inputs: Iterable<string> | AsyncIterable<string>,
  work: (input: string) => Promise<T>,
  options: ScoutManyOptions & { window: number },
): AsyncGenerator<ScoutManyItem<T>, void, undefined> {
  const iterator =
    Symbol.asyncIterator in inputs
      ? (inputs as AsyncIterable<string>)[Symbol.asyncIterator]()
      : (inputs as Iterable<string>)[Symbol.iterator]();
  const inFlight = new Map<number, Promise<{ id: number; item: ScoutManyItem<T> }>>();
  let nextId = 0;
  let exhausted = false;
  let completed = 0;
  let failed = 0;
  try {
    for (;;) {
      while (!exhausted && inFlight.size < options.window) {
        options.signal?.throwIfAborted();
        const next = await untilAborted(Promise.resolve(iterator.next()), options.signal);
        if (next.done) {
          exhausted = true;
          break;
        }
        const id = nextId++;
        const input = String(next.value);
        inFlight.set(
          id,
          work(input).then(
            (result): { id: number; item: ScoutManyItem<T> } => ({ id, item: { input, ok: true, result } }),
            (error: unknown) => {
              if (!ThreatlibError.isInstance(error)) throw error;
              return { id, item: { input, ok: false, error: { code: error.code, message: error.message } } };
            },
          ),
        );
      }
      if (inFlight.size === 0) return;
      const { id, item } = await untilAborted(Promise.race(inFlight.values()), options.signal);
      inFlight.delete(id);
      completed += 1;
      if (!item.ok) failed += 1;
      options.onProgress?.({ completed, failed, inFlight: inFlight.size });
      yield item;
    }
  } finally {
    // Abandoned work still settles; swallow its outcome so nothing becomes an unhandled rejection.
    for (const pending of inFlight.values()) pending.catch(() => {});
    // An input source still producing its next value cannot be told to stop before it yields; ending the run does
    // not wait for it.
    if (options.signal?.aborted)
      void Promise.resolve((iterator as { return?: () => unknown }).return?.()).catch(() => {});
    else await (iterator as { return?: () => unknown }).return?.();
  }
}
