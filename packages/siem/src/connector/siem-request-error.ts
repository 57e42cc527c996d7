import { ThreatlibError } from '@threatlib/core';
import { SiemError, type SiemErrorDetails } from './siem-error.js';

/**
 * The SIEM answered, and refused or failed the call for a reason other than credentials: a malformed request, a
 * missing index, an overloaded server, an answer the connector cannot read. The message quotes the SIEM's reason;
 * `isRetryable` says whether trying again may help (server errors, "busy" answers, 429).
 */
export class SiemRequestError extends SiemError {
  declare readonly code: 'SIEM_REQUEST_FAILED';

  constructor(message: string, details: SiemErrorDetails) {
    super('SIEM_REQUEST_FAILED', message, details);
    this.name = 'SiemRequestError';
  }

  /** Whether `error` is a {@link SiemRequestError}, from any copy of the package. */
  static override isInstance(error: unknown): error is SiemRequestError {
    return ThreatlibError.isInstance(error) && error.code === 'SIEM_REQUEST_FAILED';
  }
}
