import { ThreatlibError } from './threatlib-error.js';

/**
 * Thrown when something that needs Node.js (a file, a socket, the process) is asked for where there is no Node.js,
 * in a page: the module loaded fine, the feature is refused when used. `feature` names it; the message says what to
 * use instead where there is something.
 */
export class RuntimeUnsupportedError extends ThreatlibError {
  /** What was asked for (`vault file`). */
  readonly feature: string;

  constructor(feature: string, message: string, options: { cause?: unknown } = {}) {
    super('RUNTIME_UNSUPPORTED', message, options);
    this.name = 'RuntimeUnsupportedError';
    this.feature = feature;
  }

  /** Whether `error` is a {@link RuntimeUnsupportedError}, from any copy of the package. */
  static override isInstance(error: unknown): error is RuntimeUnsupportedError {
    return ThreatlibError.hasCode(error, 'RUNTIME_UNSUPPORTED');
  }
}
