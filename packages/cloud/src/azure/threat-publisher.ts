import type { Logger } from '@threatlib/core';
import { type Clock, retryDelay } from '@threatlib/core/integration';
import type { CloudError } from '../errors/cloud-error.js';
import type { StixIndicatorObject } from './sentinel-indicator.js';
import { MAX_OBJECTS_PER_UPLOAD } from './stix-upload-api.js';

/** What became of one object handed to {@link ThreatPublisher}'s `publish`. */
export type PublishOutcome = { ok: true } | { ok: false; error: CloudError };

/** What {@link ThreatPublisher} counted since it was made. */
export interface ThreatPublisherStats {
  /** Indicators Sentinel took. */
  published: number;
  /** Indicators Sentinel refused (their errors are logged). */
  refused: number;
  /** Indicators given up on after their retries (network, 5xx, throttling past its limit). */
  failed: number;
  /** Indicators not taken because `maxQueued` were already waiting. */
  dropped: number;
  /** Waiting or being sent now. */
  queued: number;
}

/** Options of {@link ThreatPublisher}. */
export interface ThreatPublisherOptions {
  /** Sends at most 100 objects; resolves with what became of each, in order. */
  publish(objects: readonly StixIndicatorObject[]): Promise<PublishOutcome[]>;
  clock: Clock;
  logger: Logger;
  /** Ms the first object of a batch waits for others. */
  batchIntervalMs: number;
  maxQueued: number;
  /** Extra attempts for an object whose failure is worth retrying. */
  retries: number;
  /** Base of the backoff between those attempts (doubling, with jitter). */
  retryDelayMs: number;
}

interface Item {
  object: StixIndicatorObject;
  attempt: number;
}

/**
 * Concluded threats on their way to Sentinel: each waits at most `batchIntervalMs` for others to share its request
 * (100 go together), an object that failed for a reason worth retrying is tried again after a backoff, and nothing
 * is lost silently: a refusal is logged with Sentinel's reason and counted, a queue past `maxQueued` drops and counts.
 * `add` is all the scan path does.
 */
export class ThreatPublisher {
  readonly #o: ThreatPublisherOptions;
  readonly #waiting: Item[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #counts = { published: 0, refused: 0, failed: 0, dropped: 0 };
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;
  #stopped = false;
  /** The last failure of a whole batch (authentication, the network), until a batch goes through. */
  #lastFailure: CloudError | undefined;

  constructor(options: ThreatPublisherOptions) {
    this.#o = options;
  }

  /** Queues an object; false when the queue is full (the object is dropped and counted) or stopped. */
  add(object: StixIndicatorObject): boolean {
    if (this.#stopped) return false;
    if (this.#waiting.length >= this.#o.maxQueued) {
      this.#counts.dropped += 1;
      this.#o.logger.error(
        { indicator: object.name, queued: this.#waiting.length },
        `Sentinel publishing is ${this.#waiting.length} indicators behind: ${object.name} was dropped`,
      );
      return false;
    }
    // The same indicator waiting already: the newer version replaces it.
    const same = this.#waiting.findIndex((item) => item.object.id === object.id);
    if (same >= 0) this.#waiting.splice(same, 1);
    this.#waiting.push({ object, attempt: 0 });
    this.#schedule(this.#waiting.length >= MAX_OBJECTS_PER_UPLOAD ? 0 : this.#o.batchIntervalMs);
    return true;
  }

  /** Resolves once every object queued so far has been sent (and retried) or given up on. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.#waiting.length > 0 && this.#running.size === 0) this.#drain(true);
      if (this.#running.size === 0 && this.#waiting.length === 0) return;
      await Promise.allSettled([...this.#running]);
      if (this.#running.size === 0 && this.#waiting.length > 0 && this.#stopped) return;
    }
  }

  /** Sends what is waiting once more (no retries after), then takes nothing more. */
  async stop(): Promise<void> {
    this.#clearTimer();
    this.#stopped = true;
    if (this.#waiting.length > 0) this.#drain(true);
    await Promise.allSettled([...this.#running]);
    const left = this.#waiting.splice(0);
    this.#counts.failed += left.length;
    if (left.length > 0) {
      this.#o.logger.error(
        { left: left.length },
        `${left.length} indicators were not published to Sentinel before stop`,
      );
    }
  }

  get stats(): ThreatPublisherStats {
    return { ...this.#counts, queued: this.#waiting.length + this.#inFlight };
  }

  /** Why the last batch failed as a whole, while no batch has gone through since. */
  get lastFailure(): CloudError | undefined {
    return this.#lastFailure;
  }

  #inFlight = 0;

  #schedule(delayMs: number): void {
    const at = this.#o.clock.now() + delayMs;
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    this.#clearTimer();
    this.#timerAt = at;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#drain(false);
    }, delayMs);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  /** Sends every waiting object whose time has come, 100 per request. */
  #drain(all: boolean): void {
    const now = this.#o.clock.now();
    const due: Item[] = [];
    const later: Item[] = [];
    for (const item of this.#waiting.splice(0)) {
      if (all || (this.#retryAt.get(item) ?? 0) <= now) due.push(item);
      else later.push(item);
    }
    this.#waiting.push(...later);
    for (let i = 0; i < due.length; i += MAX_OBJECTS_PER_UPLOAD) {
      const batch = due.slice(i, i + MAX_OBJECTS_PER_UPLOAD);
      this.#inFlight += batch.length;
      const run = this.#send(batch).finally(() => {
        this.#inFlight -= batch.length;
        this.#running.delete(run);
      });
      this.#running.add(run);
    }
    const next = Math.min(...later.map((item) => this.#retryAt.get(item) ?? now));
    if (later.length > 0) this.#schedule(Math.max(0, next - now));
  }

  readonly #retryAt = new WeakMap<Item, number>();

  async #send(batch: Item[]): Promise<void> {
    let outcomes: PublishOutcome[];
    try {
      outcomes = await this.#o.publish(batch.map((item) => item.object));
    } catch (error) {
      // `publish` reports failures per object; a throw is a bug, reported the same way rather than lost.
      outcomes = batch.map(() => ({ ok: false, error: error as CloudError }));
    }
    let anyOk = false;
    let sameFailure: CloudError | undefined;
    batch.forEach((item, index) => {
      const outcome = outcomes[index] ?? { ok: false, error: sameFailure as CloudError };
      if (outcome.ok) {
        anyOk = true;
        this.#counts.published += 1;
        return;
      }
      const { error } = outcome;
      sameFailure = error;
      if (error?.serviceCode === 'InvalidStixObject') {
        this.#counts.refused += 1;
        this.#o.logger.error({ indicator: item.object.name, err: error }, error.message);
        return;
      }
      if (error?.isRetryable && item.attempt < this.#o.retries && !this.#stopped) {
        const next = { object: item.object, attempt: item.attempt + 1 };
        const wait = retryDelay(next.attempt, {
          retryAttempts: this.#o.retries,
          retryDelay: this.#o.retryDelayMs,
          backoffMultiplier: 2,
        });
        this.#retryAt.set(next, this.#o.clock.now() + wait);
        this.#waiting.push(next);
        this.#schedule(wait);
        return;
      }
      this.#counts.failed += 1;
      this.#o.logger.error({ indicator: item.object.name, err: error }, error?.message ?? 'publishing failed');
    });
    if (anyOk) this.#lastFailure = undefined;
    else if (sameFailure && sameFailure.serviceCode !== 'InvalidStixObject') this.#lastFailure = sameFailure;
  }
}
