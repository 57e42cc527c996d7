import { quoteForDisplay } from '../text/control-characters.js';
import { ThreatlibError } from './threatlib-error.js';

/**
 * Thrown by `parseIndicator` when the input is not a usable indicator; the message names the input (quoted, cut to
 * 200 characters, every control and line-separator character escaped so the message stays one line) and why.
 */
export class InvalidIndicatorError extends ThreatlibError {
  /** The input exactly as it was given. */
  readonly input: string;
  /** Why the input was refused. */
  readonly reason: string;

  constructor(input: string, reason: string) {
    super('INVALID_INDICATOR', `Invalid indicator ${quoteForDisplay(input, 200)}: ${reason}`);
    this.name = 'InvalidIndicatorError';
    this.input = input;
    this.reason = reason;
  }

  /** Whether `error` is an {@link InvalidIndicatorError}, from any copy of the package. */
  static override isInstance(error: unknown): error is InvalidIndicatorError {
    return ThreatlibError.hasCode(error, 'INVALID_INDICATOR');
  }
}
