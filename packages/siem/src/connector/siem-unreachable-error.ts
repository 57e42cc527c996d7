import { ThreatlibError } from '@threatlib/core';
import { SiemError, type SiemErrorDetails } from './siem-error.js';

/**
 * No connection could be made to the SIEM (refused, reset, DNS failure, TLS handshake failure). The message says
 * `unreachable` and names the address and the network error; retried.
 */
export class SiemUnreachableError extends SiemError {
  declare readonly code: 'SIEM_UNREACHABLE';
  /** `host:port` the connector tried. */
  readonly address: string;

  constructor(
    address: string,
    reason: string,
    details: Omit<SiemErrorDetails, 'isRetryable'> & { isRetryable?: boolean },
  ) {
    super('SIEM_UNREACHABLE', `${address} unreachable: ${reason}`, { isRetryable: true, ...details });
    this.name = 'SiemUnreachableError';
    this.address = address;
  }

  /** Whether `error` is a {@link SiemUnreachableError}, from any copy of the package. */
  static override isInstance(error: unknown): error is SiemUnreachableError {
    return ThreatlibError.isInstance(error) && error.code === 'SIEM_UNREACHABLE';
  }
}
