/**
 * The failed-authentication limit of {@link APIServerOptions}: an address that fails `max` times within `windowMs`
 * is refused for `blockMs`.
 */
export interface AuthFailureLimit {
  /** Failed authentications from one address, within `windowMs`, that get it blocked. Default 10. */
  max?: number;
  /** Milliseconds over which failures are counted. Default 60 000. */
  windowMs?: number;
  /** Milliseconds an address stays blocked. Default 300 000 (5 minutes). */
  blockMs?: number;
}

/** The documented defaults of {@link AuthFailureLimit}. */
const AUTH_FAILURE_DEFAULTS: Readonly<Required<AuthFailureLimit>> = Object.freeze({
  max: 10,
  windowMs: 60_000,
  blockMs: 300_000,
});

interface Entry {
  windowStart: number;
  failures: number;
  blockedUntil: number;
}

/**
 * Counts failed authentications per client address and blocks an address that fails too often. A block is not
 * shortened by a success (an attacker holding one valid token could otherwise clear its own record between
 * guesses at another), nor lengthened by the failures that arrive during it (a misconfigured client is let back in
 * on time). At most `maxAddresses` (default 100 000) addresses are remembered: past that, the least recently failed
 * address that is not blocked is forgotten.
 */
export class AuthFailureLimiter {
  readonly limit: Readonly<Required<AuthFailureLimit>>;
  readonly #now: () => number;
  readonly #maxAddresses: number;
  /** In order of last failure: the first entries are the stalest. */
  readonly #entries = new Map<string, Entry>();

  /** @throws {RangeError} naming the setting that is not a whole number of at least 1. */
  constructor(limit: AuthFailureLimit = {}, options: { now?: () => number; maxAddresses?: number } = {}) {
    const resolved = { ...AUTH_FAILURE_DEFAULTS };
    for (const name of ['max', 'windowMs', 'blockMs'] as const) {
      const value = limit[name];
      if (value === undefined) continue;
      if (!Number.isSafeInteger(value) || value < 1) {
        const unit = name === 'max' ? 'a whole number' : 'a whole number of milliseconds';
        throw new RangeError(`APIServer: authFailureLimit.${name} must be ${unit}, 1 or more; got ${String(value)}`);
      }
      resolved[name] = value;
    }
    this.limit = Object.freeze(resolved);
    this.#now = options.now ?? Date.now;
    this.#maxAddresses = options.maxAddresses ?? 100_000;
  }

  /** Addresses remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Milliseconds `address` stays blocked; 0 when it is not blocked. */
  blockedFor(address: string): number {
    const entry = this.#entries.get(address);
    if (!entry) return 0;
    return Math.max(0, entry.blockedUntil - this.#now());
  }

  /** Failures `address` may still have before it is blocked: `max` for an address without any, 0 while blocked. */
  remaining(address: string): number {
    const entry = this.#entries.get(address);
    if (!entry) return this.limit.max;
    const now = this.#now();
    if (entry.blockedUntil > now) return 0;
    if (entry.blockedUntil > 0 || now - entry.windowStart >= this.limit.windowMs) return this.limit.max;
    return this.limit.max - entry.failures;
  }

  /** Counts a failed authentication from `address`; returns how long it is now blocked for (0: not blocked). */
  recordFailure(address: string): number {
    const now = this.#now();
    let entry = this.#entries.get(address);
    if (entry) {
      this.#entries.delete(address);
    } else {
      this.#makeRoom(now);
      entry = { windowStart: now, failures: 0, blockedUntil: 0 };
    }
    this.#entries.set(address, entry);
    if (entry.blockedUntil > now) return entry.blockedUntil - now;
    if (now - entry.windowStart >= this.limit.windowMs || entry.blockedUntil > 0) {
      entry.windowStart = now;
      entry.failures = 0;
      entry.blockedUntil = 0;
    }
    entry.failures++;
    if (entry.failures < this.limit.max) return 0;
    entry.blockedUntil = now + this.limit.blockMs;
    return this.limit.blockMs;
  }

  #makeRoom(now: number): void {
    if (this.#entries.size < this.#maxAddresses) return;
    // The least recently failed address that is not blocked goes; only the stalest few are looked at, so a full map
    // costs the same per new address however it is filled. When all of those are blocked, the stalest goes.
    let looked = 0;
    let victim: string | undefined;
    for (const [address, entry] of this.#entries) {
      victim ??= address;
      if (entry.blockedUntil <= now) {
        victim = address;
        break;
      }
      if (++looked === EVICTION_SCAN) break;
    }
    if (victim !== undefined) this.#entries.delete(victim);
  }
}

const EVICTION_SCAN = 32;
