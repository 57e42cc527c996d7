import { ConfigurationError } from '@threatlib/core';
import { durationSchema, recordIssues } from '@threatlib/core/integration';
import { z } from 'zod';
import { PLATFORM_IDS, type PlatformId } from '../platforms/platform-id.js';

const secret = (what: string) => z.string({ error: `required: the ${what}` }).min(1, { error: `the ${what} is empty` });

/** `{username, password}` (basic authentication) or `{token}`; what each means is the platform's (see its README). */
export const CredentialsSchema = z.union(
  [
    z.strictObject({ username: secret('user name'), password: secret('password') }),
    z.strictObject({ token: secret('token') }),
  ],
  { error: 'expected {username, password} or {token}' },
);

/** The connector's credentials. */
export type SiemCredentials = z.output<typeof CredentialsSchema>;

const pem = z.union([z.string().min(1), z.instanceof(Uint8Array)]);

/** TLS options of every connection the connector opens. */
export const TlsOptionsSchema = z.strictObject({
  /** PEM certificate(s) of the authority that signed the SIEM's certificate, trusted besides Node's own. */
  ca: z.union([pem, z.array(pem).min(1)]).optional(),
  /** Refuse a certificate no trusted authority signed (default true). Turning it off is for a lab, never production. */
  rejectUnauthorized: z.boolean().default(true),
  /** The name to check the certificate against, when it is not `host`. */
  servername: z.string().min(1).optional(),
});

/** TLS options once parsed. */
export type SiemTlsOptions = z.output<typeof TlsOptionsSchema>;

/**
 * The options every platform takes. Each platform adds its own (`hec`, `index`, `workspace`...) in its
 * `optionsShape`; the connector validates both together, refusing unknown keys.
 */
export const COMMON_OPTIONS_SHAPE = {
  platform: z.enum(PLATFORM_IDS, { error: `expected one of ${PLATFORM_IDS.join(', ')}` }),
  host: z
    .string({ error: 'required: the SIEM host name or address' })
    .trim()
    .min(1, { error: 'required: the SIEM host name or address' })
    .max(253)
    .refine((host) => !host.includes('://') && !/[/?#@\s]/.test(host), {
      error: 'expected a host name or address only (no scheme, path or user; use protocol and port)',
    }),
  /** The platform's default when absent (Splunk: 8089, its management port). */
  port: z.int({ error: 'expected a whole number' }).min(1).max(65_535).optional(),
  protocol: z.enum(['https', 'http']).default('https'),
  /**
   * Refuse `protocol: 'http'` (default: the client's `security.enforceHttps`, else true). Only an explicit `false`
   * here, or a client with `security.enforceHttps: false`, allows plain HTTP.
   */
  enforceHttps: z.boolean().optional(),
  credentials: CredentialsSchema,
  /**
   * Ms one request may take before it counts as failed (and is retried): 100 to 600 000. Less than 100 ms is seconds
   * given for milliseconds (`timeout: 30`), refused with what was meant.
   */
  timeout: durationSchema({ name: 'timeout', unit: 'milliseconds', min: 100, max: 600_000, integer: true }).default(
    30_000,
  ),
  /** Retries after the first attempt, for failures worth retrying (never an authentication failure). */
  retries: z.int({ error: 'expected a whole number' }).min(0).max(10).default(3),
  /** Base backoff between retries in ms (default: the client's `performance.retryDelay`, else 1000). */
  retryDelay: z.int().min(0).max(600_000).optional(),
  /** Growth of the backoff per retry (default: the client's `performance.backoffMultiplier`, else 2). */
  backoffMultiplier: z.number().min(1).max(10).optional(),
  /** The longest `Retry-After` the connector waits for, in ms; a longer one fails the call at once. */
  maxRetryAfter: z.int().min(0).max(3_600_000).default(60_000),
  /** Most alerts per request for `sendAlerts` (default and maximum: the platform's limit). */
  batchSize: z.int().min(1).max(100_000).optional(),
  /**
   * Requests one `sendAlerts` call keeps in flight (default and maximum: the platform's, 4 for Splunk and Elastic,
   * 1 for the others); 1 sends the batches one after the other.
   */
  batchConcurrency: z.int({ error: 'expected a whole number' }).min(1).max(16).optional(),
  tls: TlsOptionsSchema.default({ rejectUnauthorized: true }),
} as const;

const CommonSchema = z.strictObject(COMMON_OPTIONS_SHAPE);

/** The options every platform shares, once parsed (defaults filled, port not yet). */
export type CommonSiemOptions = z.output<typeof CommonSchema>;

/** The options every platform shares, resolved: port and backoff filled from the platform and client. */
export interface ResolvedCommonOptions extends Omit<CommonSiemOptions, 'port' | 'retryDelay' | 'backoffMultiplier'> {
  port: number;
  retryDelay: number;
  backoffMultiplier: number;
}

/** `new SIEMConnector(options)` as written by its user: the common options and the platform's own. */
export type SiemConnectorOptions = z.input<typeof CommonSchema> & {
  /** Options of the chosen platform (see its section of the README). */
  [platformOption: string]: unknown;
};

/** Checks the `platform` field before anything else, since it decides which other options exist. */
export function readPlatform(input: unknown, where: string): PlatformId {
  const result = COMMON_OPTIONS_SHAPE.platform.safeParse((input as { platform?: unknown } | null)?.platform);
  if (result.success) return result.data;
  throw new ConfigurationError([{ path: join(where, 'platform'), message: result.error.issues[0]?.message ?? '' }]);
}

/**
 * Validates `input` against the common options and the platform's own shape together.
 *
 * @throws {ConfigurationError} `Configuration invalid: <where>.<option>: <reason>; ...` naming every problem, never
 *   quoting a credential.
 */
export function parseConnectorOptions<Shape extends z.core.$ZodLooseShape>(
  input: unknown,
  platformShape: Shape,
  where: string,
): CommonSiemOptions & z.output<z.ZodObject<Shape>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigurationError([{ path: where || '(root)', message: 'expected an object of connector options' }]);
  }
  const schema = z.strictObject({ ...COMMON_OPTIONS_SHAPE, ...platformShape });
  const result = schema.safeParse(input);
  if (result.success) return result.data as CommonSiemOptions & z.output<z.ZodObject<Shape>>;
  throw new ConfigurationError(
    recordIssues(result.error.issues).map((issue) => ({
      path: join(where, issue.path === '(root)' ? '' : issue.path),
      message: issue.message,
    })),
  );
}

function join(where: string, path: string): string {
  if (!where) return path || '(root)';
  return path ? `${where}.${path}` : where;
}
