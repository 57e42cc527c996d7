// The options of CloudSiemIntegration. Sources:
// - The upload API's address, api-version and token audience:
//   https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api
// - Azure Resource Manager's endpoint and audience per cloud (public: https://management.azure.com/):
//   https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/azure-services-resource-providers
// - TokenCredential (`getToken(scopes, options)`), what every @azure/identity credential is:
//   https://learn.microsoft.com/en-us/javascript/api/@azure/core-auth/tokencredential
// - ClientSecretCredential(tenantId, clientId, clientSecret, {authorityHost, disableInstanceDiscovery}):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/identity/clientsecretcredential
import type { TokenCredential } from '@azure/identity';
import { ConfigurationError } from '@threatlib/core';
import { confidenceSchema, recordIssues } from '@threatlib/core/integration';
import { z } from 'zod';

/** The api-version of the STIX objects upload API. */
export const UPLOAD_API_VERSION = '2024-02-01-preview';

/** The Microsoft.SecurityInsights api-version the legacy indicator API is called with (stable, has the operation). */
export const LEGACY_API_VERSION = '2024-03-01';

/** The Microsoft.OperationalInsights api-version the workspace is read with (for its GUID). */
export const WORKSPACE_API_VERSION = '2023-09-01';

const guid = (what: string) =>
  z.string({ error: `required: the ${what} (a GUID)` }).regex(/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i, {
    error: `expected the ${what} as a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)`,
  });

// Azure resource names: resource groups 1-90 characters, workspaces 4-63; both end up in a URL path.
const resourceName = (what: string, max: number) =>
  z
    .string({ error: `required: the ${what}` })
    .min(1, { error: `required: the ${what}` })
    .max(max)
    .regex(/^[-\w.()]+$/, { error: `expected the ${what}: letters, digits, '-', '_', '.', '(' and ')'` });

const httpsUrl = (what: string) =>
  z
    .url({ protocol: /^https$/, error: `expected the ${what} as an https URL` })
    .transform((url) => url.replace(/\/+$/, ''));

/**
 * `credentials` as a configuration file can hold it: an app registration's client secret, turned into an
 * `@azure/identity` `ClientSecretCredential`.
 */
const ClientSecretOptionsSchema = z.strictObject({
  tenantId: guid('tenant id'),
  clientId: guid('application (client) id'),
  clientSecret: z.string({ error: 'required: the client secret' }).min(1, { error: 'required: the client secret' }),
  /** Entra ID's address (a sovereign cloud's; a test authority). Default https://login.microsoftonline.com. */
  authorityHost: httpsUrl('authority host').optional(),
});

/** `{tenantId, clientId, clientSecret, authorityHost?}`. */
export type ClientSecretOptions = z.input<typeof ClientSecretOptionsSchema>;

/** The options of `new CloudSiemIntegration(options)`. */
const CloudSiemOptionsSchema = z.strictObject({
  /** The Azure subscription of the workspace. */
  subscriptionId: guid('subscription id'),
  resourceGroupName: resourceName('resource group name', 90),
  /** The Log Analytics workspace Sentinel runs on. */
  workspaceName: resourceName('workspace name', 63),
  /** Who calls: any `TokenCredential`, or `{tenantId, clientId, clientSecret}` for a `ClientSecretCredential`. */
  credentials: z.unknown().transform((value, ctx): TokenCredential | z.output<typeof ClientSecretOptionsSchema> => {
    if (typeof (value as { getToken?: unknown } | null)?.getToken === 'function') return value as TokenCredential;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'expected an @azure/identity credential (a TokenCredential, such as new ClientSecretCredential(tenantId, clientId, clientSecret)), or {tenantId, clientId, clientSecret} in a configuration',
      });
      return z.NEVER;
    }
    const parsed = ClientSecretOptionsSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of recordIssues(parsed.error.issues)) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path === '(root)' ? [] : [issue.path] });
    }
    return z.NEVER;
  }),
  /**
   * The workspace's GUID (its workspace id, `customerId`), which the upload API is addressed by; absent, it is read
   * once from Azure Resource Manager (the app then also needs read access to the workspace).
   */
  workspaceId: guid('workspace id').optional(),
  /**
   * `stix` (default): Sentinel's STIX objects upload API, which writes the `ThreatIntelIndicators` table. `legacy`:
   * the threat-intelligence indicator API of Azure Resource Manager (`@azure/arm-securityinsight`), whose table
   * Microsoft no longer fills.
   */
  api: z.enum(['stix', 'legacy']).default('stix'),
  /** The upload API's `sourcesystem` and the legacy API's `source`. Default `threatlib`. */
  sourceSystem: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .refine((value) => value.toLowerCase() !== 'microsoft sentinel', {
      error: "'Microsoft Sentinel' is reserved by Sentinel: name your own source system",
    })
    .default('threatlib'),
  /** Where the APIs are (another cloud's, a test server). */
  endpoints: z
    .strictObject({
      /** The upload API. Default https://api.ti.sentinel.azure.com. */
      threatIntelligence: httpsUrl('threat intelligence endpoint').default('https://api.ti.sentinel.azure.com'),
      /** Azure Resource Manager. Default https://management.azure.com. */
      resourceManager: httpsUrl('resource manager endpoint').default('https://management.azure.com'),
    })
    .prefault({}),
  /** The audience of the tokens both APIs take: Azure Resource Manager's. Default https://management.azure.com/. */
  audience: z.url({ protocol: /^https$/ }).default('https://management.azure.com/'),
  /** The upload API's limit per user: 100 requests per minute (the default), spread over this integration's calls. */
  requestsPerMinute: z.int().min(1).max(100).default(100),
  /** Requests in flight at once. Default 4. */
  concurrency: z.int().min(1).max(16).default(4),
  /** How many 429 answers one request waits out before it fails. Default 10. */
  maxThrottleRetries: z.int().min(0).max(100).default(10),
  /** Ms one request may take. Default 30000. */
  timeout: z.int().min(100).max(600_000).default(30_000),
  /** Concluded threats below this confidence (0..100) are not published. Default 0: every concluded threat. */
  minConfidence: confidenceSchema('minConfidence').default(0),
  /** Ms a concluded threat waits for others to share its request (at most 100 go together). Default 1000. */
  batchIntervalMs: z.int().min(0).max(60_000).default(1_000),
  /** Indicators held for publishing at most; past it, new ones are dropped and counted. Default 10000. */
  maxQueued: z.int().min(100).max(1_000_000).default(10_000),
  /** Extra attempts for a batch that failed for a reason worth retrying (network, 5xx). Default 3. */
  retries: z.int().min(0).max(10).default(3),
});

/** What users write for `new CloudSiemIntegration(options)`. */
export type CloudSiemIntegrationOptions = z.input<typeof CloudSiemOptionsSchema>;

/** The options once validated, defaults applied. */
export type ResolvedCloudSiemOptions = z.output<typeof CloudSiemOptionsSchema>;

/**
 * Validates the options of `CloudSiemIntegration`.
 *
 * @throws {ConfigurationError} `Configuration invalid: <where>.<option>: <reason>` for every problem; never quotes
 *   the client secret.
 */
export function parseCloudSiemOptions(options: unknown, where: string): ResolvedCloudSiemOptions {
  const result = CloudSiemOptionsSchema.safeParse(options ?? {});
  if (result.success) return result.data;
  throw new ConfigurationError(
    recordIssues(result.error.issues).map((issue) => ({
      path: issue.path === '(root)' ? where : where ? `${where}.${issue.path}` : issue.path,
      message: issue.message,
    })),
  );
}
