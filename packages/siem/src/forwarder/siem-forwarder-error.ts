import { ThreatlibError } from '@threatlib/core';

/** How the forwarder reaches its endpoint. */
export type ForwarderTransport = 'https' | 'http' | 'syslog+tls' | 'syslog+tcp';

/** Structured fields of a {@link SiemForwarderError}. */
export interface SiemForwarderErrorDetails {
  /** The endpoint as shown in messages: scheme, host, port and path, never credentials or a query string. */
  endpoint: string;
  transport: ForwarderTransport;
  /** The HTTP status the endpoint answered with, when it answered. */
  statusCode?: number;
  /** Whether another attempt may succeed (the client's delivery policy reads it). */
  isRetryable: boolean;
  cause?: unknown;
}

/**
 * An alert could not be delivered to `enterprise.siemIntegration.endpoint`: the endpoint was unreachable, the TLS
 * handshake failed, the connection broke, or an HTTPS endpoint answered other than 2xx. The message names the
 * endpoint without its credentials or query and says why; `isRetryable` is false when trying again cannot help (a
 * certificate no trusted authority signed, an HTTP 4xx other than 408 and 429).
 */
export class SiemForwarderError extends ThreatlibError {
  declare readonly code: 'SIEM_FORWARD_FAILED';
  readonly endpoint: string;
  readonly transport: ForwarderTransport;
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;

  constructor(message: string, details: SiemForwarderErrorDetails) {
    super('SIEM_FORWARD_FAILED', message, details.cause === undefined ? {} : { cause: details.cause });
    this.name = 'SiemForwarderError';
    this.endpoint = details.endpoint;
    this.transport = details.transport;
    this.statusCode = details.statusCode;
    this.isRetryable = details.isRetryable;
  }

  /** Whether `error` is a {@link SiemForwarderError}, from any copy of the package. */
  static override isInstance(error: unknown): error is SiemForwarderError {
    return ThreatlibError.isInstance(error) && error.code === 'SIEM_FORWARD_FAILED';
  }
}
