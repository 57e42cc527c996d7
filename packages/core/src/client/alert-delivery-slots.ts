// The places among one client's alert deliveries running at once: how many run together, how many may wait for a
// place, and the refusal of every waiting one when the client stops.

/** Deliveries running at once, over every alert and integration. */
const MAX_RUNNING = 32;
/** Deliveries waiting for a place before new ones are recorded `failed` without an attempt. */
export const MAX_WAITING = 10_000;

/**
 * The places among the deliveries of one client running at once: {@link MAX_RUNNING} run, up to {@link MAX_WAITING}
 * wait for a place in turn, any more are refused one.
 */
export class AlertDeliverySlots {
  readonly #waiting: Array<(admitted: boolean) => void> = [];
  #running = 0;

  /** A place among the deliveries running at once: true when given one, false when refused (or `draining`). */
  admit(draining: AbortSignal): Promise<boolean> {
    if (draining.aborted) return Promise.resolve(false);
    if (this.#running < MAX_RUNNING) {
      this.#running += 1;
      return Promise.resolve(true);
    }
    if (this.#waiting.length >= MAX_WAITING) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.#waiting.push((admitted) => {
        if (admitted) this.#running += 1;
        resolve(admitted);
      });
    });
  }

  /** Gives back a place that `admit` gave: the first delivery waiting gets it. */
  release(): void {
    this.#running -= 1;
    this.#waiting.shift()?.(true);
  }

  /** For the client's stop: every delivery waiting for a place is refused one now. */
  refuseWaiting(): void {
    for (const admit of this.#waiting.splice(0)) admit(false);
  }
}
