import { isUuid } from '../stix/uuid-v5.js';
import { quoteForDisplay } from '../text/control-characters.js';

/** A file of a MISP feed read whole: its text, and the validator to send next time (HTTP `ETag`). */
interface MispFeedFile {
  readonly text: string;
  readonly etag?: string;
}

/** How one file of a feed is asked for. */
interface MispFeedReadOptions {
  /** Larger files fail with reason `too large`, read no further than this. */
  readonly maxBytes: number;
  /** Answer `unchanged` instead of the file when it still has this validator. */
  readonly etag?: string;
  /** Stops the read (a closing list). */
  readonly signal?: AbortSignal;
}

/**
 * Where a MISP feed's files come from: a directory, or an HTTP(S) base URL. `read` takes only `manifest.json` or
 * `<uuid>.json`, the UUID checked before any path or URL is built from it.
 */
export interface MispFeedTransport {
  /** The directory or the base URL, as messages show it (never with credentials). */
  readonly location: string;
  /**
   * Reads one file of the feed.
   *
   * @throws {@link MispFeedReadError} saying why it could not be read.
   */
  read(name: string, options: MispFeedReadOptions): Promise<MispFeedFile | 'unchanged'>;
}

/** Why a file of a feed could not be read: `missing` (404, no such file), `too large`, or anything else. */
export type MispFeedReadFailure = 'missing' | 'too large' | 'unreadable';

/** Thrown by a {@link MispFeedTransport}: the file, why, and a message naming both (never a secret). */
export class MispFeedReadError extends Error {
  readonly failure: MispFeedReadFailure;

  constructor(failure: MispFeedReadFailure, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'MispFeedReadError';
    this.failure = failure;
  }
}

/**
 * Checks that `name` is one of the two kinds of file a feed has (`manifest.json`, `<uuid>.json`) before a path or
 * URL is built from it: a name from a hostile manifest (`../../etc/passwd`) never reaches the file system or the
 * network.
 *
 * @throws {TypeError} for any other name (a bug: the manifest reader lets only UUIDs through).
 */
export function checkFeedFileName(name: string): string {
  if (name === 'manifest.json') return name;
  if (name.endsWith('.json') && isUuid(name.slice(0, -5))) return name;
  throw new TypeError(`not a MISP feed file name: ${quoteForDisplay(name, 80)}`);
}
