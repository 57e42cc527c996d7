// Google Security Operations' own options of a SIEMConnector (platform siem_e, beta). Sources:
// - Chronicle API endpoints and resource names (projects/{project}/locations/{location}/instances/{instance}):
//   https://cloud.google.com/chronicle/docs/reference/rest
// - Regional endpoints ({region}-chronicle.googleapis.com): https://cloud.google.com/chronicle/docs/reference/ingestion-methods
// - OAuth scopes of events.import and udmSearch (cloud-platform):
//   https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances.events/import
import { z } from 'zod';

const name = z.string().trim().min(1).max(256);
const segment = (what: string) =>
  z
    .string({ error: `required: the ${what}` })
    .trim()
    .min(1, { error: `required: the ${what}` })
    .max(128)
    .regex(/^[A-Za-z0-9._~-]+$/, { error: `expected the ${what} alone (letters, digits, - . _ ~)` });

/** The Chronicle API's port (HTTPS). */
export const CHRONICLE_PORT = 443;
/** Google's OAuth 2.0 token endpoint, where a service account's signed assertion is exchanged for a token. */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** The scope the Chronicle API documents for events.import and udmSearch. */
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** The options `siem_e` adds to the common ones. */
export const CHRONICLE_OPTIONS = {
  /** The Google Cloud project (id or number) the SecOps instance is bound to. */
  project: segment('Google Cloud project id or number'),
  /** The instance's region, as in its API host (`us`, `europe`, `asia-southeast1`...). */
  location: segment('SecOps region (location), such as us or europe'),
  /** The SecOps instance: its customer id (a UUID). */
  instance: segment('SecOps instance (customer) id'),
  /**
   * The OAuth token endpoint of the service account (default: the key file's `token_uri`, else Google's). It must
   * use the connector's `protocol`; the connector's `tls` options apply to it too.
   */
  tokenUri: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  /** OAuth scopes asked for the service account's token. */
  scopes: z
    .array(z.url({ error: 'expected a scope URL' }))
    .min(1)
    .max(10)
    .default([CLOUD_PLATFORM_SCOPE]),
  /** `metadata.vendor_name` and `metadata.product_name` of the events. */
  vendorName: name.default('threatlib'),
  productName: name.default('threatlib'),
  /** How far back `enrichIndicator` searches, in days (a UDM search needs a time range). */
  searchDays: z.int().min(1).max(365).default(90),
  /** Most events one enrichment search reads (udmSearch caps it at 10,000). */
  searchLimit: z.int().min(1).max(10_000).default(10_000),
} as const;

/** Chronicle's options once parsed. */
export type ChronicleOptions = z.output<z.ZodObject<typeof CHRONICLE_OPTIONS>>;
