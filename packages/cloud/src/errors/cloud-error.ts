import { ThreatlibError } from '@threatlib/core';

/** The cloud service a {@link CloudError} comes from. */
export type CloudService = 's3' | 'guardduty' | 'sentinel' | 'entra';

/** Options of {@link CloudError}. */
export interface CloudErrorOptions {
  /** The service's own error code (`AccessDenied`, `BadRequestException`, `InvalidAccessKeyId`...). */
  serviceCode?: string;
  /** The HTTP status the service answered, when it answered. */
  statusCode?: number;
  /** Whether trying the same call again later may succeed (throttling, 5xx, network) or not (bad input, denied). */
  isRetryable?: boolean;
  cause?: unknown;
}

/**
 * Thrown when a call to a cloud service fails. The message names the service call (`GuardDuty
 * CreateThreatIntelSet`, `S3 PutObject`) and the service's reason (its error code and message); it never holds a
 * secret key, a token or a signature.
 */
export class CloudError extends ThreatlibError {
  readonly service: CloudService;
  /** The API operation that failed, as the service names it (`CreateThreatIntelSet`, `PutObject`, `ListDetectors`). */
  readonly operation: string;
  readonly serviceCode: string | undefined;
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;

  constructor(service: CloudService, operation: string, message: string, options: CloudErrorOptions = {}) {
    super('CLOUD_FAILED', message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'CloudError';
    this.service = service;
    this.operation = operation;
    this.serviceCode = options.serviceCode;
    this.statusCode = options.statusCode;
    this.isRetryable = options.isRetryable ?? false;
  }

  /** Whether `error` is a {@link CloudError}, from any copy of the package. */
  static override isInstance(error: unknown): error is CloudError {
    return ThreatlibError.hasCode(error, 'CLOUD_FAILED');
  }
}
