import { ThreatlibError } from '@threatlib/core';
import type { BatchOutcome } from './batch-outcome.js';

/** What the connector was doing when a call failed. */
export type SiemOperation = 'sendAlert' | 'createCase' | 'enrichIndicator' | 'testConnection';

/** The stable codes of a {@link SiemError}, one per subclass. */
export type SiemErrorCode =
  | 'SIEM_AUTHENTICATION_FAILED'
  | 'SIEM_UNREACHABLE'
  | 'SIEM_TIMEOUT'
  | 'SIEM_REQUEST_FAILED'
  | 'SIEM_UNSUPPORTED';

/** Structured fields every {@link SiemError} carries. */
export interface SiemErrorDetails {
  /** The platform identifier (`siem_a`). */
  platform: string;
  /** What the connector was doing. */
  operation: SiemOperation;
  /** The HTTP status the SIEM answered with, when it answered. */
  statusCode?: number;
  /** The SIEM's own error code (`4` for Splunk's "Invalid token"), when it gave one. */
  siemCode?: string | number;
  /** Whether trying the same call again may succeed. */
  isRetryable?: boolean;
  /** How long the SIEM asked to wait before trying again (`Retry-After`), in ms. */
  retryAfterMs?: number;
  /** How many attempts were made before giving up (1 when the call was not retried). */
  attempts?: number;
  cause?: unknown;
}

const SIEM_CODES: readonly string[] = [
  'SIEM_AUTHENTICATION_FAILED',
  'SIEM_UNREACHABLE',
  'SIEM_TIMEOUT',
  'SIEM_REQUEST_FAILED',
  'SIEM_UNSUPPORTED',
];

/**
 * Base class of the errors a `SIEMConnector` call rejects with. Its message never holds a credential: the connector
 * scrubs every secret it was given from the SIEM's answer before quoting it.
 */
export class SiemError extends ThreatlibError {
  declare readonly code: SiemErrorCode;
  readonly platform: string;
  readonly operation: SiemOperation;
  readonly statusCode: number | undefined;
  readonly siemCode: string | number | undefined;
  readonly isRetryable: boolean;
  readonly retryAfterMs: number | undefined;
  /** How many attempts were made; set by the connector once it gives up. */
  attempts: number;
  /**
   * On the error a `sendAlerts` call rejects with: how each of its batches ended (delivered, failed, not sent), with
   * the positions of its alerts. Absent on every other error.
   */
  batches?: BatchOutcome[];

  constructor(code: SiemErrorCode, message: string, details: SiemErrorDetails) {
    super(code, message, details.cause === undefined ? {} : { cause: details.cause });
    this.name = 'SiemError';
    this.platform = details.platform;
    this.operation = details.operation;
    this.statusCode = details.statusCode;
    this.siemCode = details.siemCode;
    this.isRetryable = details.isRetryable ?? false;
    this.retryAfterMs = details.retryAfterMs;
    this.attempts = details.attempts ?? 1;
  }

  /** Whether `error` is a {@link SiemError}, from any copy of the package. */
  static override isInstance(error: unknown): error is SiemError {
    return ThreatlibError.isInstance(error) && SIEM_CODES.includes(error.code);
  }
}
