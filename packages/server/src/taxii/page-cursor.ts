import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { TaxiiError } from './taxii-error.js';

/** Where a page ended, and for which query: what a `next` cursor carries. */
export interface CursorPosition {
  /** The query the page answered (route, collection, filters), as {@link queryDigest} makes it. */
  readonly query: string;
  /** The `date_added` of the last record on the page, in microseconds. */
  readonly after: number;
}

/** The least key length, in bytes: an HMAC-SHA256 key shorter than its output weakens it. */
const MIN_KEY_BYTES = 32;
const VERSION = 1;

/**
 * Makes and checks the `next` cursors of TAXII pages. A cursor is stateless: it carries where the page ended and a
 * digest of the query it answered, with an expiry, signed with HMAC-SHA256. Any server holding the same key
 * accepts it (so paging works across instances behind a load balancer, when they share the key and the objects);
 * one altered, expired, or used with another query is refused with a 400 TAXII error.
 */
export class PageCursors {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #now: () => number;

  /**
   * @param key the HMAC key, at least 32 bytes (a string counts its UTF-8 bytes); a new random one when absent (then
   *   cursors do not outlive the process, nor work on another instance).
   * @throws {RangeError} when the key is shorter than 32 bytes or the lifetime is not a positive whole number.
   */
  constructor(options: { key?: string | Uint8Array; ttlMs: number; now: () => number }) {
    const key =
      options.key === undefined
        ? randomBytes(MIN_KEY_BYTES)
        : typeof options.key === 'string'
          ? Buffer.from(options.key, 'utf8')
          : Buffer.from(options.key);
    if (key.length < MIN_KEY_BYTES) {
      throw new RangeError(`TAXII cursorKey must be at least ${MIN_KEY_BYTES} bytes; got ${key.length}`);
    }
    if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs < 1) {
      throw new RangeError(`TAXII cursorTtlMs must be a whole number of 1 or more; got ${String(options.ttlMs)}`);
    }
    this.#key = key;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now;
  }

  /** A cursor for the page after `position`. */
  issue(position: CursorPosition): string {
    const payload = Buffer.from(
      JSON.stringify([VERSION, position.query, position.after, this.#now() + this.#ttlMs]),
      'utf8',
    ).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /**
   * Where the page a cursor asks for starts.
   *
   * @throws {TaxiiError} 400, saying which: a cursor this server did not issue (or altered), one past its lifetime,
   *   or one issued for another query.
   */
  read(cursor: string, query: string): number {
    const dot = cursor.indexOf('.');
    const payload = dot === -1 ? '' : cursor.slice(0, dot);
    const mac = dot === -1 ? '' : cursor.slice(dot + 1);
    const expected = Buffer.from(this.#sign(payload), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (payload === '' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalid('is not a cursor this server issued (or it was altered); page again from the first page');
    }
    let fields: unknown;
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid('is not a cursor this server issued; page again from the first page');
    }
    const [version, issuedFor, after, expires] = Array.isArray(fields) ? fields : [];
    if (
      version !== VERSION ||
      typeof issuedFor !== 'string' ||
      !Number.isSafeInteger(after) ||
      typeof expires !== 'number'
    ) {
      throw invalid('is a cursor of another version of this server; page again from the first page');
    }
    if (this.#now() > expires) {
      throw invalid(
        `expired at ${new Date(expires).toISOString()} (cursors last ${Math.round(this.#ttlMs / 1000)} s); page again from the first page, or with added_after`,
      );
    }
    if (issuedFor !== query) {
      throw invalid(
        'was issued for another query: send next with the same path, added_after and match[...] as the page that gave it (only limit may change)',
      );
    }
    return after as number;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}

/**
 * A digest of what a page answers: the route (`objects`, `manifest`, `object:<id>`, `versions:<id>`), the collection
 * and the filters, each in a canonical order, so that a cursor names its query without carrying it.
 */
export function queryDigest(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

function invalid(why: string): TaxiiError {
  return new TaxiiError(400, 'Invalid next', `the next parameter ${why}`);
}
