import { RateLimitError } from '../errors/rate-limit-error.js';
import type { Clock } from './clock.js';
import type { QuotaWindows } from './default-quotas.js';
import { FeedQuota, type WindowName, type WindowStatus } from './feed-quota.js';
import type { QuotaGate, QuotaGrant } from './quota-gate.js';

interface Job {
  /** Starts the task; `slotHeld` when the slot was taken already (while asking a gate). */
  run: (slotHeld?: boolean) => void;
  fail: (error: unknown) => void;
  deadline: number | undefined;
  deadlineName: string;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface FeedLane {
  feed: string;
  quota: FeedQuota;
  /** Where the quota is kept when not here (a cluster): asked before each request instead of `quota`. */
  gate: QuotaGate | undefined;
  queue: Job[];
  running: number;
  /** Requests whose gate has not answered yet (each holds a slot). */
  asking: number;
  /** The gate refused until then (epoch ms): no request of the lane asks again before. */
  blockedUntil: number;
  blockedBy: { window: WindowName; limit: string } | undefined;
}

/** Requests of one feed that may be asking its gate at once (each a round trip to where the quota is kept). */
const MAX_ASKING = 8;

/** Options of {@link FeedScheduler.schedule}. */
export interface ScheduleOptions {
  /** Epoch ms after which the request is no longer wanted: if our quota cannot send it by then, it fails. */
  deadline?: number | undefined;
  /** What the deadline is, in the failure's message (default `the deadline`). */
  deadlineName?: string | undefined;
  /** Cancels a request still waiting. */
  signal?: AbortSignal | undefined;
}

/**
 * The one gate every feed request goes through. Each feed has its own FIFO queue and quota (token bucket plus
 * minute/hour/day windows plus any pause the feed asked for); a request leaves its queue when its feed's quota has
 * room **and** one of the global `maxConcurrency` slots is free. Quota is taken before a slot, so a feed waiting
 * for its quota never holds a slot that another feed could use.
 *
 * Work waits; it never fails because of our own limit. Only a request with a deadline that its feed's quota cannot
 * meet fails, with a {@link RateLimitError} naming the window.
 */
export class FeedScheduler {
  readonly #clock: Clock;
  readonly #lanes = new Map<string, FeedLane>();
  readonly #quotaFor: (feed: string) => QuotaWindows;
  readonly #gateFor: ((feed: string) => QuotaGate | undefined) | undefined;
  readonly #onSent: ((feed: string) => void) | undefined;
  #concurrency: number;
  #running = 0;
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;
  #cursor = 0;

  constructor(options: {
    concurrency: number;
    clock: Clock;
    quotaFor: (feed: string) => QuotaWindows;
    /** A feed's quota kept elsewhere (a cluster's), used instead of the local one. */
    gateFor?: (feed: string) => QuotaGate | undefined;
    /** Told each time a request of `feed` is let go (after its quota was taken). */
    onSent?: (feed: string) => void;
  }) {
    this.#concurrency = options.concurrency;
    this.#clock = options.clock;
    this.#quotaFor = options.quotaFor;
    this.#gateFor = options.gateFor;
    this.#onSent = options.onSent;
  }

  /** How many requests may run at once. */
  get concurrency(): number {
    return this.#concurrency;
  }

  /** Changes the global limit; queued work is kept and runs under the new limit. */
  setConcurrency(n: number): void {
    this.#concurrency = n;
    this.#pump();
  }

  /**
   * Runs `task` when `feed`'s quota and a global slot allow. Rejects with {@link RateLimitError} if the deadline
   * cannot be met, or with the signal's reason if it aborts while waiting.
   */
  schedule<T>(feed: string, task: () => Promise<T>, options: ScheduleOptions = {}): Promise<T> {
    const lane = this.#lane(feed);
    options.signal?.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        deadline: options.deadline,
        deadlineName: options.deadlineName ?? 'the deadline',
        signal: options.signal,
        onAbort: undefined,
        fail: (error) => {
          if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
          reject(error);
        },
        run: (slotHeld = false) => {
          if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
          if (!slotHeld) this.#running += 1;
          lane.running += 1;
          this.#onSent?.(lane.feed);
          task()
            .then(resolve, reject)
            .finally(() => {
              this.#running -= 1;
              lane.running -= 1;
              this.#pump();
            });
        },
      };
      if (options.signal) {
        job.onAbort = () => {
          const index = lane.queue.indexOf(job);
          if (index !== -1) lane.queue.splice(index, 1);
          reject(options.signal?.reason);
        };
        options.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      lane.queue.push(job);
      this.#pump();
    });
  }

  /** Holds every request of `feed` until `until` (epoch ms), as the feed asked with Retry-After or a reset time. */
  pause(feed: string, until: number): void {
    const lane = this.#lane(feed);
    if (lane.gate) lane.gate.pause(until);
    else lane.quota.pauseUntil(until);
    this.#pump();
  }

  /** When `feed` may send its next request (its quota and pause), and the window holding it back if any. */
  nextAvailable(feed: string): { at: number; window?: WindowName; limit?: string } {
    return this.#next(this.#lane(feed), this.#clock.now());
  }

  /** The gate of `feed`'s quota, when it is kept elsewhere. */
  gate(feed: string): QuotaGate | undefined {
    return this.#lane(feed).gate;
  }

  /** One feed's queue, quota and pause. */
  status(feed: string): {
    queued: number;
    inFlight: number;
    quota: WindowStatus[];
    limits: string;
    pausedUntil?: string;
  } {
    const lane = this.#lane(feed);
    const now = this.#clock.now();
    const keeper = lane.gate ?? lane.quota;
    const paused = keeper.pausedUntil(now);
    return {
      queued: lane.queue.length + lane.asking,
      inFlight: lane.running,
      quota: keeper.status(now),
      limits: keeper.describe,
      ...(paused === undefined ? {} : { pausedUntil: new Date(paused).toISOString() }),
    };
  }

  /** Cancels the wake-up timer; queued work stays queued (the client is stopping). */
  close(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #lane(feed: string): FeedLane {
    let lane = this.#lanes.get(feed);
    if (!lane) {
      lane = {
        feed,
        quota: new FeedQuota(this.#quotaFor(feed), this.#clock.now()),
        gate: this.#gateFor?.(feed),
        queue: [],
        running: 0,
        asking: 0,
        blockedUntil: 0,
        blockedBy: undefined,
      };
      this.#lanes.set(feed, lane);
    }
    return lane;
  }

  #pump(): void {
    const now = this.#clock.now();
    const lanes = [...this.#lanes.values()];
    let wakeAt = Number.POSITIVE_INFINITY;

    // Requests whose deadline their feed's quota cannot meet fail now, not when the deadline passes.
    for (const lane of lanes) {
      if (lane.queue.length === 0) continue;
      const next = this.#next(lane, now);
      for (let i = 0; i < lane.queue.length; i++) {
        const job = lane.queue[i] as Job;
        if (job.deadline === undefined) continue;
        if (next.at > job.deadline) {
          lane.queue.splice(i, 1);
          i -= 1;
          const what =
            next.window === 'pause' ? 'pause (the feed asked us to wait)' : `${next.window} quota (${next.limit})`;
          job.fail(
            new RateLimitError(
              lane.feed,
              next.window ?? 'second',
              next.at,
              `${lane.feed}: no room in its ${what} before ${job.deadlineName}; next request possible at ${new Date(next.at).toISOString()}`,
            ),
          );
        } else if (now > job.deadline) {
          lane.queue.splice(i, 1);
          i -= 1;
          job.fail(
            new RateLimitError(
              lane.feed,
              'concurrency',
              now,
              `${lane.feed}: waited for one of the ${this.#concurrency} request slots (performance.maxConcurrency) past ${job.deadlineName}`,
            ),
          );
        }
      }
    }

    // Round-robin over feeds with queued work, so one busy feed cannot starve the others of slots.
    let progressed = true;
    while (progressed && this.#running < this.#concurrency) {
      progressed = false;
      for (let k = 0; k < lanes.length && this.#running < this.#concurrency; k++) {
        const lane = lanes[(this.#cursor + k) % lanes.length] as FeedLane;
        if (lane.queue.length === 0) continue;
        const next = this.#next(lane, now);
        if (next.at > now) {
          wakeAt = Math.min(wakeAt, next.at);
          continue;
        }
        const job = lane.queue.shift() as Job;
        if (lane.gate) {
          if (lane.asking >= MAX_ASKING) {
            lane.queue.unshift(job);
            continue;
          }
          this.#ask(lane, lane.gate, job, now);
        } else {
          lane.quota.take(now);
          job.run();
        }
        progressed = true;
        this.#cursor = (this.#cursor + k + 1) % lanes.length;
        break;
      }
    }

    // Wake up when the earliest blocked feed has room (or at the earliest deadline, to fail it on time).
    for (const lane of lanes) {
      if (lane.queue.length === 0) continue;
      const next = this.#next(lane, now);
      if (next.at > now) wakeAt = Math.min(wakeAt, next.at);
      for (const job of lane.queue) if (job.deadline !== undefined) wakeAt = Math.min(wakeAt, job.deadline + 1);
    }
    this.#arm(wakeAt, now);
  }

  /** When `lane` may send next: its local quota, or what its gate last said (a refusal, a pause). */
  #next(lane: FeedLane, now: number): { at: number; window?: WindowName; limit?: string } {
    if (!lane.gate) return lane.quota.nextAvailable(now);
    const paused = lane.gate.pausedUntil(now);
    if (paused !== undefined && paused >= lane.blockedUntil) {
      return { at: paused, window: 'pause', limit: 'the feed asked us to wait' };
    }
    if (lane.blockedUntil > now && lane.blockedBy) return { at: lane.blockedUntil, ...lane.blockedBy };
    return { at: now };
  }

  /**
   * Asks the lane's gate for room for `job`, holding a slot meanwhile (room granted is used at once). Granted, the job
   * runs (at the start of its reserved slot, if later); refused, it goes back to the head of its queue and the lane
   * waits until the gate said; a job cancelled meanwhile gives its room back.
   */
  #ask(lane: FeedLane, gate: QuotaGate, job: Job, now: number): void {
    this.#running += 1;
    lane.asking += 1;
    const done = (grant: QuotaGrant) => {
      lane.asking -= 1;
      if (job.signal?.aborted) {
        // Its abort listener rejected it already (it was in no queue to remove).
        if (grant.granted) grant.cancel();
        this.#running -= 1;
        this.#pump();
        return;
      }
      if (grant.granted) {
        const wait = grant.notBefore - this.#clock.now();
        if (wait <= 0) job.run(true);
        else this.#clock.setTimeout(() => (job.signal?.aborted ? this.#giveBack(grant) : job.run(true)), wait);
        return;
      }
      this.#running -= 1;
      if (grant.at > lane.blockedUntil) {
        lane.blockedUntil = grant.at;
        lane.blockedBy = { window: grant.window, limit: grant.limit };
      }
      lane.queue.unshift(job);
      this.#pump();
    };
    gate.acquire(now).then(done, () =>
      // A gate never rejects; if one did, the request waits a moment and asks again.
      done({ granted: false, at: this.#clock.now() + 100, window: 'second', limit: 'the quota could not be read' }),
    );
  }

  #giveBack(grant: Extract<QuotaGrant, { granted: true }>): void {
    grant.cancel();
    this.#running -= 1;
    this.#pump();
  }

  #arm(at: number, now: number): void {
    if (at === Number.POSITIVE_INFINITY) return;
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#pump();
    }, at - now);
  }
}
