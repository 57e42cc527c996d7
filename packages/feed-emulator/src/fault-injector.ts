/** Which faults the emulator injects, as fractions of the requests admitted by the quota. */
export interface FaultOptions {
  /** Fraction answered with the vendor's 429 without `Retry-After` (a spurious limit). Default 0. */
  rate429?: number;
  /** Fraction answered with the vendor's server error (500, 503 or 504, as the vendor sends). Default 0. */
  rate500?: number;
  /** Seed of the PRNG; the same seed gives the same sequence of faults (default 1). */
  seed?: number;
}

/** What the injector decided for one request. */
export type Fault = 'rate_limited' | 'server_error' | undefined;

/** mulberry32: a tiny seeded PRNG giving floats in [0, 1); good enough to spread faults, not for anything secret. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws one fault decision per request from a seeded PRNG, so a run can be reproduced. */
export class FaultInjector {
  readonly #rate429: number;
  readonly #rate500: number;
  readonly #seed: number;
  #random: () => number;

  constructor(options: FaultOptions) {
    this.#rate429 = options.rate429 ?? 0;
    this.#rate500 = options.rate500 ?? 0;
    for (const [name, rate] of [
      ['rate429', this.#rate429],
      ['rate500', this.#rate500],
    ] as const) {
      if (!(rate >= 0 && rate <= 1)) throw new RangeError(`faults.${name} must be between 0 and 1, got ${rate}`);
    }
    if (this.#rate429 + this.#rate500 > 1) {
      throw new RangeError(`faults.rate429 + faults.rate500 must not exceed 1, got ${this.#rate429 + this.#rate500}`);
    }
    this.#seed = options.seed ?? 1;
    this.#random = mulberry32(this.#seed);
  }

  /** The fault for the next request (one draw per request, whatever the rates). */
  next(): Fault {
    const r = this.#random();
    if (r < this.#rate429) return 'rate_limited';
    if (r < this.#rate429 + this.#rate500) return 'server_error';
    return undefined;
  }

  /** Starts the sequence again from the seed. */
  restart(): void {
    this.#random = mulberry32(this.#seed);
  }
}
