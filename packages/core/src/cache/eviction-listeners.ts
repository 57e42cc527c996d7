/**
 * The `onEvict` listeners of a cache back end. Listeners are called synchronously, in the order they were added,
 * once per operation that evicted (with how many entries it dropped). They should not throw: the client passes a
 * listener that hands the count to its event bus, which isolates user handlers.
 */
export class EvictionListeners {
  readonly #listeners = new Set<(count: number) => void>();

  /** Adds `listener`; adding the same function twice keeps one. */
  add(listener: (count: number) => void): void {
    this.#listeners.add(listener);
  }

  /** Tells every listener that `count` entries were evicted; does nothing when `count` is 0. */
  emit(count: number): void {
    if (count <= 0) return;
    for (const listener of this.#listeners) listener(count);
  }
}
