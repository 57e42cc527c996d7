import { ThreatlibError } from '@threatlib/core';
import { SiemError, type SiemErrorDetails } from './siem-error.js';

/** The SIEM took longer than the connector's `timeout` to answer one request; retried. */
export class SiemTimeoutError extends SiemError {
  declare readonly code: 'SIEM_TIMEOUT';
  /** The timeout that elapsed, in ms. */
  readonly timeoutMs: number;

  constructor(address: string, timeoutMs: number, details: Omit<SiemErrorDetails, 'isRetryable'>) {
    super('SIEM_TIMEOUT', `${address} did not answer within ${timeoutMs} ms (timed out)`, {
      ...details,
      isRetryable: true,
    });
    this.name = 'SiemTimeoutError';
    this.timeoutMs = timeoutMs;
  }

  /** Whether `error` is a {@link SiemTimeoutError}, from any copy of the package. */
  static override isInstance(error: unknown): error is SiemTimeoutError {
    return ThreatlibError.isInstance(error) && error.code === 'SIEM_TIMEOUT';
  }
}
