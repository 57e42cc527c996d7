import { ThreatlibError } from '../errors/threatlib-error.js';

/** Options of a {@link CacheError}. */
export interface CacheErrorOptions {
  /** The back end that failed (`memory`, `kvserver`, `file`), when one did. */
  backend?: string;
  /** The error that caused this one, if any. */
  cause?: unknown;
}

/**
 * Thrown when a cache back end cannot do what was asked: a missing optional package, a server that cannot be
 * reached, a directory that cannot be written, a value that is not JSON. The message names the back end's location
 * (`127.0.0.1:6379`, a directory) and never a password.
 */
export class CacheError extends ThreatlibError {
  /** The back end that failed, when one did. */
  readonly backend: string | undefined;

  constructor(message: string, options: CacheErrorOptions = {}) {
    super('CACHE_FAILED', message, { cause: options.cause });
    this.name = 'CacheError';
    this.backend = options.backend;
  }

  /** Whether `error` is a {@link CacheError}, from any copy of the package. */
  static override isInstance(error: unknown): error is CacheError {
    return ThreatlibError.hasCode(error, 'CACHE_FAILED');
  }
}
