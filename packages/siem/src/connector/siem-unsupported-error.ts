import { ThreatlibError } from '@threatlib/core';
import { SiemError, type SiemErrorDetails } from './siem-error.js';

/** The platform (or the connector for it) cannot do this call at all (`createCase` on a beta connector); never retried. */
export class SiemUnsupportedError extends SiemError {
  declare readonly code: 'SIEM_UNSUPPORTED';

  constructor(message: string, details: Omit<SiemErrorDetails, 'isRetryable'>) {
    super('SIEM_UNSUPPORTED', message, { ...details, isRetryable: false });
    this.name = 'SiemUnsupportedError';
  }

  /** Whether `error` is a {@link SiemUnsupportedError}, from any copy of the package. */
  static override isInstance(error: unknown): error is SiemUnsupportedError {
    return ThreatlibError.isInstance(error) && error.code === 'SIEM_UNSUPPORTED';
  }
}
