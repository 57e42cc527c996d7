import type { EmulatorRequest, EmulatorResponse } from '@threatlib/siem-emulator';

/** A request as the emulator received it (the SIEM emulator's `EmulatorRequest`: both serve through its plumbing). */
export type CloudRequest = EmulatorRequest;

/** An answer. Objects are sent as JSON, strings and buffers as they are. */
export type CloudResponse = EmulatorResponse;

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
