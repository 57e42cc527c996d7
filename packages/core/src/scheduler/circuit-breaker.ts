import type { Clock } from './clock.js';

/** A breaker's state: `closed` lets requests through, `open` refuses them, `half_open` lets one trial through. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** Options of {@link CircuitBreaker}, from `performance.circuitBreaker`. */
export interface BreakerOptions {
  /** Failures within `monitoringWindow` that open the breaker. */
  failureThreshold: number;
  /** How long it stays open before letting a trial through, in ms. */
  resetTimeout: number;
  /** The span failures are counted over, in ms. */
  monitoringWindow: number;
}

/** A breaker's state for `feedStatus()`. */
export interface BreakerStatus {
  state: BreakerState;
  /** Failures counted in the current monitoring window. */
  failures: number;
  /** ISO 8601, while open. */
  openedAt?: string;
  /** ISO 8601: when the next trial may go, while open. */
  nextTrialAt?: string;
}

/**
 * What the feed pipeline asks of a feed's breaker: a {@link CircuitBreaker}, or a cluster's shared one (whose
 * `tryAcquire` asks Redis).
 */
export interface FeedBreaker {
  tryAcquire(): boolean | Promise<boolean>;
  success(): void;
  failure(): void;
  release(): void;
  status(): BreakerStatus;
}

/**
 * One feed's circuit breaker. It opens after `failureThreshold` failures within `monitoringWindow`, refuses every
 * request while open, lets a single trial through after `resetTimeout` (half open), and closes again when that
 * trial succeeds or reopens when it fails.
 */
export class CircuitBreaker implements FeedBreaker {
  readonly #options: BreakerOptions;
  readonly #clock: Clock;
  readonly #onChange: (state: BreakerState) => void;
  #state: BreakerState = 'closed';
  #failures: number[] = [];
  #openedAt = 0;
  #trialInFlight = false;

  constructor(options: BreakerOptions, clock: Clock, onChange: (state: BreakerState) => void = () => {}) {
    this.#options = options;
    this.#clock = clock;
    this.#onChange = onChange;
  }

  /** The state now (an open breaker whose reset timeout has passed reads half open). */
  get state(): BreakerState {
    if (this.#state === 'open' && this.#clock.now() >= this.#openedAt + this.#options.resetTimeout) {
      this.#set('half_open');
    }
    return this.#state;
  }

  /**
   * Whether a request may go now. In half-open state only one trial is let through until it reports back; the
   * caller must then call `success()` or `failure()` (or `release()` if the trial never reached the feed).
   */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#trialInFlight) return false;
    this.#trialInFlight = true;
    return true;
  }

  /** The request got an answer from the feed. */
  success(): void {
    this.#trialInFlight = false;
    if (this.#state === 'half_open') {
      this.#failures = [];
      this.#set('closed');
    }
  }

  /** The request failed in a way that counts against the feed (error, timeout, refused key). */
  failure(): void {
    const now = this.#clock.now();
    this.#trialInFlight = false;
    if (this.#state === 'half_open') {
      this.#open(now);
      return;
    }
    this.#failures = this.#failures.filter((t) => t > now - this.#options.monitoringWindow);
    this.#failures.push(now);
    if (this.#state === 'closed' && this.#failures.length >= this.#options.failureThreshold) this.#open(now);
  }

  /** A trial that never reached the feed (cancelled, rate limited by us) gives its turn back. */
  release(): void {
    this.#trialInFlight = false;
  }

  status(): BreakerStatus {
    const state = this.state;
    const now = this.#clock.now();
    const failures = this.#failures.filter((t) => t > now - this.#options.monitoringWindow).length;
    return {
      state,
      failures,
      ...(state === 'open'
        ? {
            openedAt: new Date(this.#openedAt).toISOString(),
            nextTrialAt: new Date(this.#openedAt + this.#options.resetTimeout).toISOString(),
          }
        : {}),
    };
  }

  #open(now: number): void {
    this.#openedAt = now;
    this.#failures = [];
    this.#set('open');
  }

  #set(state: BreakerState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#onChange(state);
  }
}
