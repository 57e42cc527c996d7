const marker = Symbol.for('threatlib.error');

/** Options every {@link ThreatlibError} accepts. */
export interface ThreatlibErrorOptions {
  /** The error that caused this one, if any. */
  cause?: unknown;
}

/**
 * Base class of every error threatlib throws. Each subclass has a stable `name` and `code`.
 *
 * @example
 * ```ts
 * try { client.updateConcurrency(99); } catch (e) {
 *   if (ThreatlibError.isInstance(e)) console.error(e.code, e.message);
 * }
 * ```
 */
export class ThreatlibError extends Error {
  /** Brand that lets `isInstance` recognise errors from another copy of the package. */
  readonly [marker] = true;
  /** A stable, machine-readable identifier of the kind of failure. */
  readonly code: string;

  constructor(code: string, message: string, options: ThreatlibErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ThreatlibError';
    this.code = code;
  }

  /**
   * Whether `error` is a threatlib error. Unlike `instanceof`, it also recognises errors made by another copy of
   * the package (two versions installed side by side).
   */
  static isInstance(error: unknown): error is ThreatlibError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }

  /** Whether `error` is a threatlib error with the given `code`, from any copy of the package. */
  protected static hasCode(error: unknown, code: string): boolean {
    return ThreatlibError.isInstance(error) && error.code === code;
  }
}
