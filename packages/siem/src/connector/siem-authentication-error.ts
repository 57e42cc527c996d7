import { ThreatlibError } from '@threatlib/core';
import { SiemError, type SiemErrorDetails } from './siem-error.js';

/**
 * The SIEM refused the credentials (or the token has no right to the call). The message is
 * `authentication failed: <the SIEM's own reason>`; never retried.
 *
 * @example
 * ```ts
 * try { await connector.testConnection(); } catch (e) {
 *   if (SiemAuthenticationError.isInstance(e)) console.error(e.message); // authentication failed: Invalid token
 * }
 * ```
 */
export class SiemAuthenticationError extends SiemError {
  declare readonly code: 'SIEM_AUTHENTICATION_FAILED';
  /** The SIEM's own reason, as it gave it (secrets removed). */
  readonly reason: string;

  constructor(reason: string, details: Omit<SiemErrorDetails, 'isRetryable'>) {
    super('SIEM_AUTHENTICATION_FAILED', `authentication failed: ${reason}`, { ...details, isRetryable: false });
    this.name = 'SiemAuthenticationError';
    this.reason = reason;
  }

  /** Whether `error` is a {@link SiemAuthenticationError}, from any copy of the package. */
  static override isInstance(error: unknown): error is SiemAuthenticationError {
    return ThreatlibError.isInstance(error) && error.code === 'SIEM_AUTHENTICATION_FAILED';
  }
}
