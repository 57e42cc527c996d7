import { randomBytes } from 'node:crypto';

/**
 * Makes the ids of indexed documents: the time in ms, a random tag of this process and a counter, so ids made in one
 * process never repeat and ids from several processes collide only with negligible probability. Giving each document
 * its id before it is sent makes a bulk request that is tried again idempotent: a document that was indexed before
 * the connection broke is overwritten, not indexed twice. Ids made close in time share a prefix, which keeps
 * Elasticsearch's id lookups local (as its own auto-generated ids do).
 */
export class DocumentIds {
  readonly #tag = randomBytes(6).toString('base64url');
  #counter = 0;
  #time = Number.NaN;
  #prefix = '';

  next(now: number): string {
    this.#counter = (this.#counter + 1) % 2_176_782_336; // 36^6: the counter keeps six base-36 digits
    const time = Math.max(0, Math.trunc(now));
    if (time !== this.#time) {
      this.#time = time;
      this.#prefix = `${time.toString(36).padStart(9, '0')}${this.#tag}`;
    }
    return `${this.#prefix}${this.#counter.toString(36).padStart(6, '0')}`;
  }
}
