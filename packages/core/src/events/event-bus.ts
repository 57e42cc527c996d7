import type { Logger } from '../logging/logger.js';

type Handler = (...args: never[]) => unknown;

/**
 * A typed event emitter whose handlers can never hurt the emitter: a handler that throws or whose promise rejects
 * is logged, and the other handlers still run. It works in Node.js and in browsers (no `node:events`).
 *
 * @example
 * ```ts
 * const bus = new EventBus<{ ping: [n: number] }>(logger);
 * bus.on('ping', async (n) => { await save(n); });
 * bus.emit('ping', 1);
 * ```
 */
export class EventBus<Events extends { [K in keyof Events]: unknown[] }> {
  readonly #handlers = new Map<keyof Events, Set<Handler>>();
  readonly #onceWrappers = new WeakMap<Handler, Handler>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Calls `handler` every time `event` is emitted. */
  on<E extends keyof Events>(event: E, handler: (...args: Events[E]) => unknown): this {
    let set = this.#handlers.get(event);
    if (!set) {
      set = new Set();
      this.#handlers.set(event, set);
    }
    set.add(handler as Handler);
    return this;
  }

  /** Calls `handler` the next time `event` is emitted, then forgets it. */
  once<E extends keyof Events>(event: E, handler: (...args: Events[E]) => unknown): this {
    const wrapper = (...args: Events[E]) => {
      this.off(event, handler);
      return handler(...args);
    };
    this.#onceWrappers.set(handler as Handler, wrapper as Handler);
    return this.on(event, wrapper);
  }

  /** Stops calling `handler` for `event` (whether it was added with `on` or `once`). */
  off<E extends keyof Events>(event: E, handler: (...args: Events[E]) => unknown): this {
    const set = this.#handlers.get(event);
    if (!set) return this;
    const wrapper = this.#onceWrappers.get(handler as Handler);
    if (wrapper) {
      set.delete(wrapper);
      this.#onceWrappers.delete(handler as Handler);
    }
    set.delete(handler as Handler);
    if (set.size === 0) this.#handlers.delete(event);
    return this;
  }

  /** How many handlers `event` has. */
  listenerCount(event: keyof Events): number {
    return this.#handlers.get(event)?.size ?? 0;
  }

  /**
   * Calls every handler of `event` with `args`. Never throws: a handler's exception or rejected promise is logged
   * with the event's name. Returns whether any handler was called.
   */
  emit<E extends keyof Events>(event: E, ...args: Events[E]): boolean {
    const set = this.#handlers.get(event);
    if (!set || set.size === 0) return false;
    // Copy first: a `once` handler removes itself while we iterate.
    for (const handler of [...set]) {
      try {
        const result = (handler as (...a: Events[E]) => unknown)(...args);
        if (isPromiseLike(result)) {
          Promise.resolve(result).catch((error: unknown) => this.#report(event, error));
        }
      } catch (error) {
        this.#report(event, error);
      }
    }
    return true;
  }

  /** Forgets every handler of every event. */
  clear(): void {
    this.#handlers.clear();
  }

  #report(event: keyof Events, error: unknown): void {
    try {
      this.#logger.error({ event: String(event), err: error }, `handler for event "${String(event)}" failed`);
    } catch {
      // A broken logger must not turn a handler failure into an emitter failure.
    }
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
