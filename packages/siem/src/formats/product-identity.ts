import { createRequire } from 'node:module';

/** Who wrote an event: the CEF header's Device Vendor / Product / Version, LEEF's Vendor / Product / Version. */
export interface ProductIdentity {
  vendor: string;
  product: string;
  version: string;
}

let packageVersion: string | undefined;

/**
 * threatlib as the device of CEF and LEEF events: vendor and product `threatlib`, version that of
 * `@threatlib/siem` (read from its package.json the first time it is asked for).
 */
export function threatlibIdentity(): ProductIdentity {
  packageVersion ??= (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  return { vendor: 'threatlib', product: 'threatlib', version: packageVersion };
}
