import { ThreatlibError } from './threatlib-error.js';

/** Thrown by `parseIndicator` when the input is not a usable indicator; the message names the input and why. */
export class InvalidIndicatorError extends ThreatlibError {
  /** The input exactly as it was given. */
  readonly input: string;
  /** Why the input was refused. */
  readonly reason: string;

  constructor(input: string, reason: string) {
    super('INVALID_INDICATOR', `Invalid indicator ${JSON.stringify(truncate(input))}: ${reason}`);
    this.name = 'InvalidIndicatorError';
    this.input = input;
    this.reason = reason;
  }

  /** Whether `error` is an {@link InvalidIndicatorError}, from any copy of the package. */
  static override isInstance(error: unknown): error is InvalidIndicatorError {
    return ThreatlibError.hasCode(error, 'INVALID_INDICATOR');
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
