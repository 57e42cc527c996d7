import type { IncomingHttpHeaders } from 'node:http';

/** The vendors the emulator serves. */
export type VendorName = 'splunk' | 'qradar' | 'kibana' | 'sentinel' | 'chronicle';

/** A request as the emulator received it. */
export interface EmulatorRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body as sent (after nothing: a vendor that accepts gzip decodes it itself). */
  raw: Buffer;
  /** `raw` as UTF-8. */
  body: string;
  /** Epoch ms when it arrived. */
  receivedAt: number;
}

/** An answer. Objects are sent as JSON, strings and buffers as they are. */
export interface EmulatorResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * One emulated vendor API. It checks a request the way the vendor does (authentication first, then headers, then
 * the body), keeps what it accepted, and answers with the vendor's documented status codes and error bodies.
 */
export interface VendorEmulator {
  readonly vendor: VendorName;
  /** Whether the request is for this vendor (by its path). */
  handles(request: EmulatorRequest): boolean;
  handle(request: EmulatorRequest): EmulatorResponse | Promise<EmulatorResponse>;
  /** The vendor's answer when it is overloaded (for injected faults): its 503 (or 429) with its own body. */
  busy(request: EmulatorRequest): EmulatorResponse;
  /** Forgets what it received and its scripted state. */
  reset(): void;
}
