/** Keeps the last `size` request durations of a feed and reports percentiles over them. */
export class LatencyTracker {
  readonly #samples: number[] = [];
  readonly #size: number;
  #next = 0;

  constructor(size = 1000) {
    this.#size = size;
  }

  record(ms: number): void {
    if (this.#samples.length < this.#size) this.#samples.push(ms);
    else this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.#size;
  }

  /** p50 and p95 in ms (null before the first request), nearest-rank. */
  percentiles(): { p50: number | null; p95: number | null; samples: number } {
    if (this.#samples.length === 0) return { p50: null, p95: null, samples: 0 };
    const sorted = [...this.#samples].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number;
    return { p50: at(0.5), p95: at(0.95), samples: sorted.length };
  }
}
