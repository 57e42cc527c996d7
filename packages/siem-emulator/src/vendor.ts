import type { EmulatorRequest, EmulatorResponse } from './emulator-http.js';

export type { EmulatorRequest, EmulatorResponse } from './emulator-http.js';

/** The vendors the emulator serves. */
export type VendorName = 'splunk' | 'qradar' | 'kibana' | 'sentinel' | 'chronicle';

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
