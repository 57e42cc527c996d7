import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import { dayOfDailyIndex, isPastRetention } from './daily-index.js';
import { describeFailure, runRequest } from './elasticsearch-errors.js';

/** Index names per delete request: the names go in the URL, which Elasticsearch caps at 4 KB by default. */
const DELETE_CHUNK = 40;

/**
 * Deletes the daily indices of `bases` whose whole day is more than `retentionDays` days before `now`. Only names
 * that are exactly `<base>-YYYY.MM.DD` are considered, so no other index is ever touched. Needs neither ILM nor
 * delete-by-query: a whole index goes. Resolves with the names deleted.
 */
export async function deleteExpiredIndices(
  client: Client,
  bases: readonly string[],
  now: number,
  retentionDays: number,
): Promise<string[]> {
  const expired: string[] = [];
  for (const base of bases) {
    const resolved = await runRequest('sweep', base, () =>
      client.indices.resolveIndex({ name: `${base}-*`, expand_wildcards: ['open', 'closed'] }),
    );
    for (const { name } of resolved.indices) {
      const day = dayOfDailyIndex(base, name);
      if (day !== undefined && isPastRetention(day, now, retentionDays)) expired.push(name);
    }
  }
  expired.sort();
  for (let i = 0; i < expired.length; i += DELETE_CHUNK) {
    const chunk = expired.slice(i, i + DELETE_CHUNK);
    // Another store may have deleted some of them meanwhile: missing ones are not an error.
    await runRequest('sweep', undefined, () => client.indices.delete({ index: chunk, ignore_unavailable: true }));
  }
  return expired;
}

/** Options of {@link PeriodicSweep}. */
export interface PeriodicSweepOptions {
  clock: Clock;
  intervalMs: number;
  logger: Logger;
  /** One sweep at `now`. */
  sweep(now: number): Promise<void>;
}

/**
 * Runs a sweep at start and then every `intervalMs` on the clock (an unref'd timer: housekeeping nobody awaits keeps
 * no process alive). A failed sweep is logged and counted, and the next one runs as planned. `stop()` clears the
 * timer and waits for a sweep under way.
 */
export class PeriodicSweep {
  readonly #options: PeriodicSweepOptions;
  #timer: unknown;
  #running: Promise<void> | undefined;
  #stopped = true;
  /** Sweeps run, sweeps that failed, and the last failure's reason. */
  readonly stats: { sweeps: number; failures: number; lastError?: string } = { sweeps: 0, failures: 0 };

  constructor(options: PeriodicSweepOptions) {
    this.#options = options;
  }

  /** Sweeps once now (resolving when done, failed or not) and schedules the next sweeps. */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    await this.#runNow();
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#options.clock.setTimeout(
      () => {
        this.#timer = undefined;
        void this.#runNow().finally(() => this.#schedule());
      },
      this.#options.intervalMs,
      { unref: true },
    );
  }

  #runNow(): Promise<void> {
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #run(): Promise<void> {
    const { clock, sweep, logger } = this.#options;
    try {
      await sweep(clock.now());
      this.stats.sweeps += 1;
    } catch (error) {
      this.stats.failures += 1;
      this.stats.lastError = describeFailure(error);
      logger.warn(
        { failures: this.stats.failures, reason: this.stats.lastError },
        `elasticsearch: retention sweep failed (the next sweep tries again): ${this.stats.lastError}`,
      );
    }
  }
}
