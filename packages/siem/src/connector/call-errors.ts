// The makers of the connector's errors for one call (`siemErrors`), which a platform uses to fail; the error classes
// themselves are siem-error.ts (the base) and one file per kind.
import { SiemAuthenticationError } from './siem-authentication-error.js';
import type { SiemErrorDetails, SiemOperation } from './siem-error.js';
import { SiemRequestError } from './siem-request-error.js';
import { SiemUnreachableError } from './siem-unreachable-error.js';
import { SiemUnsupportedError } from './siem-unsupported-error.js';

/** Details a platform gives about a failed request. */
type FailureDetails = Omit<SiemErrorDetails, 'platform' | 'operation' | 'attempts'>;

/** Makers of the connector's errors for one call, the platform and operation filled in. */
export interface SiemErrors {
  /** The SIEM refused the credentials: `authentication failed: <reason>`. */
  authentication(reason: string, details?: Omit<FailureDetails, 'isRetryable'>): SiemAuthenticationError;
  /** The SIEM answered with a failure other than credentials. */
  request(message: string, details?: FailureDetails): SiemRequestError;
  /** No connection could be made: `<address> unreachable: <reason>`. */
  unreachable(reason: string, details?: FailureDetails & { address?: string }): SiemUnreachableError;
  /** The call cannot be made on this platform. */
  unsupported(message: string): SiemUnsupportedError;
  /**
   * The error for an HTTP answer that is not a success, by its status: 401 → authentication (403 too, unless
   * `forbiddenIsAuth` is false), 408/429/5xx → retryable request error (with `Retry-After`), else a request error.
   * `reason` is the SIEM's own message, already read from its error body.
   */
  fromStatus(
    statusCode: number,
    reason: string,
    extra?: { siemCode?: string | number; retryAfterMs?: number; forbiddenIsAuth?: boolean },
  ): SiemAuthenticationError | SiemRequestError;
}

/** Where the errors of one call come from. */
export interface SiemErrorsSource {
  platform: string;
  /** The product's name (`Splunk`). */
  vendor: string;
  operation: SiemOperation;
  /** `host:port` of the connector. */
  address: string;
  /** Removes every secret the connector knows from a text; applied to every message and reason. */
  scrub(text: string): string;
}

/** The makers of errors for one call: `source` says which platform, operation and address. */
export function siemErrors(source: SiemErrorsSource): SiemErrors {
  const { platform, vendor, operation, address, scrub } = source;
  const base = { platform, operation };
  return {
    authentication: (reason, details = {}) =>
      new SiemAuthenticationError(scrub(reason.trim() || 'the SIEM refused the credentials'), {
        ...base,
        ...details,
      }),
    request: (message, details = {}) =>
      new SiemRequestError(scrub(`${vendor} ${operation}: ${message}`), { ...base, ...details }),
    unreachable: (reason, details = {}) =>
      new SiemUnreachableError(`${vendor} at ${details.address ?? address}`, scrub(reason), { ...base, ...details }),
    unsupported: (message) => new SiemUnsupportedError(scrub(`${vendor} ${operation}: ${message}`), base),
    fromStatus(statusCode, reason, extra = {}) {
      const text = scrub(reason.trim() || `HTTP ${statusCode}`);
      if (statusCode === 401 || (statusCode === 403 && extra.forbiddenIsAuth !== false)) {
        return new SiemAuthenticationError(text, {
          ...base,
          statusCode,
          ...(extra.siemCode === undefined ? {} : { siemCode: extra.siemCode }),
        });
      }
      const isRetryable = statusCode === 408 || statusCode === 429 || statusCode >= 500;
      return new SiemRequestError(`${vendor} ${operation}: HTTP ${statusCode}: ${text}`, {
        ...base,
        statusCode,
        isRetryable,
        ...(extra.siemCode === undefined ? {} : { siemCode: extra.siemCode }),
        ...(extra.retryAfterMs === undefined ? {} : { retryAfterMs: extra.retryAfterMs }),
      });
    },
  };
}
