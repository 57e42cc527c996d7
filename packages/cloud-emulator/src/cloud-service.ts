import type { IncomingHttpHeaders } from 'node:http';

/** A request as the emulator received it. */
export interface CloudRequest {
  method: string;
  /** Path without the query string, percent-decoding left to the service. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body as sent. */
  raw: Buffer;
  /** `raw` as UTF-8. */
  body: string;
}

/** An answer. Objects are sent as JSON, strings and buffers as they are. */
export interface CloudResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * One emulated cloud API (GuardDuty, Sentinel...). It checks a request the way the service does (authentication
 * first, then the input), keeps what it accepted, and answers with the service's documented status codes and error
 * shapes.
 */
export interface CloudService {
  /** Its name in recorded requests (`guardduty`). */
  readonly service: string;
  /** Whether the request is for this service (by its path or headers). */
  handles(request: CloudRequest): boolean;
  handle(request: CloudRequest): CloudResponse | Promise<CloudResponse>;
  /** Forgets what it received. */
  reset(): void;
}
