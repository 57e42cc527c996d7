// Microsoft Sentinel's own options of a SIEMConnector (platform siem_d). Sources:
// - Logs Ingestion API: data collection endpoint, rule immutable id, stream name, custom table (`_CL`):
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/logs-ingestion-api-overview
// - Log Analytics workspace id (a GUID) for queries: https://learn.microsoft.com/en-us/azure/azure-monitor/logs/api/overview
// - Incidents live under subscription / resource group / workspace name in ARM:
//   https://learn.microsoft.com/en-us/rest/api/securityinsights/incidents/create-or-update
// - Entra ID authority hosts of the clouds (`authorityHost`):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/identity/azureauthorityhosts
import type { ConfigurationIssue } from '@threatlib/core';
import { z } from 'zod';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';

/** The data collection endpoint's port (HTTPS). */
export const SENTINEL_DEFAULT_PORT = 443;

/** The Microsoft.SecurityInsights api-version incidents are written with: the newest stable one. */
export const INCIDENTS_API_VERSION = '2025-09-01';

const guid = (what: string) =>
  z.string({ error: `required: the ${what} (a GUID)` }).regex(/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i, {
    error: `expected the ${what} as a GUID`,
  });

const httpsUrl = (what: string) =>
  z
    .url({ error: `expected the ${what} as a URL` })
    .refine((url) => url.startsWith('https://'), {
      error: `the ${what} must be https:// (Azure's APIs are HTTPS only)`,
    })
    .transform((url) => url.replace(/\/+$/, ''));

/** A Log Analytics table or column name: a KQL identifier, never quoted into a query. */
const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { error: 'expected a table name (letters, digits, _)' });

/** The options `siem_d` adds to the common ones. `host`/`port` are the data collection endpoint. */
export const SENTINEL_OPTIONS = {
  /**
   * The Entra ID tenant (directory) id, or its domain: the client-credentials credential signs in there. Required
   * with `credentials: {username: <application (client) id>, password: <client secret>}`.
   */
  tenantId: z
    .string()
    .regex(/^([0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}|[A-Za-z0-9.-]+\.[A-Za-z]{2,})$/i, {
      error: 'expected the tenant id (a GUID) or its domain (contoso.onmicrosoft.com)',
    })
    .optional(),
  /** The data collection rule's immutable id (`dcr-` and 32 hex digits), from its JSON view. */
  dataCollectionRuleId: z
    .string({ error: 'required: the data collection rule’s immutable id (dcr-...)' })
    .regex(/^dcr-[0-9a-f]{32}$/i, { error: 'expected the rule’s immutable id: dcr- and 32 hex digits' }),
  /** The stream the rule declares for alerts. */
  streamName: z
    .string()
    .regex(/^Custom-[A-Za-z0-9_]+$/, { error: 'expected a custom stream name, Custom-<name>' })
    .default('Custom-ThreatlibAlerts'),
  /** The table the rule sends the stream to, which `enrichIndicator` queries. */
  table: identifier.default('ThreatlibAlerts_CL'),
  /** The Log Analytics workspace id (a GUID: the workspace's "Workspace ID"), for `enrichIndicator`. */
  workspaceId: guid('Log Analytics workspace id'),
  /** Where the Sentinel workspace sits in ARM, for `createCase` (all three, or none: then cases are refused). */
  subscriptionId: guid('subscription id').optional(),
  resourceGroup: z
    .string()
    .regex(/^[-\w._()]{1,90}$/, { error: 'expected a resource group name' })
    .optional(),
  workspaceName: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{2,61}[A-Za-z0-9]$/, { error: 'expected a Log Analytics workspace name' })
    .optional(),
  /** Entra ID's sign-in host (default the public cloud's; `https://login.microsoftonline.us` for US Government). */
  authorityHost: httpsUrl('authority host').default('https://login.microsoftonline.com'),
  /** Azure Resource Manager (default the public cloud's). */
  armEndpoint: httpsUrl('ARM endpoint').default('https://management.azure.com'),
  /** The Log Analytics query API (default the public cloud's). */
  logAnalyticsEndpoint: httpsUrl('Log Analytics endpoint').default('https://api.loganalytics.io'),
  /** How far back `enrichIndicator` looks, an ISO 8601 duration (default 90 days). */
  lookback: z
    .string()
    .regex(/^P(?!$)(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/, { error: 'expected an ISO 8601 duration such as P90D' })
    .default('P90D'),
} as const;

/** Sentinel's options once parsed. */
export type SentinelOptions = z.output<z.ZodObject<typeof SENTINEL_OPTIONS>>;

/** Problems no schema sees alone: the credential form needs a tenant; incidents need their three ARM names. */
export function validateSentinelOptions(options: ResolvedCommonOptions & SentinelOptions): ConfigurationIssue[] {
  const issues: ConfigurationIssue[] = [];
  if (options.protocol !== 'https') {
    issues.push({ path: 'protocol', message: 'siem_d speaks to Azure, which is HTTPS only' });
  }
  if ('password' in options.credentials && options.tenantId === undefined) {
    issues.push({
      path: 'tenantId',
      message:
        'required with {username, password} credentials (the application (client) id and its secret sign in to that tenant)',
    });
  }
  const arm = [options.subscriptionId, options.resourceGroup, options.workspaceName];
  if (arm.some((v) => v !== undefined) && arm.some((v) => v === undefined)) {
    issues.push({
      path: arm[0] === undefined ? 'subscriptionId' : arm[1] === undefined ? 'resourceGroup' : 'workspaceName',
      message: 'cases need subscriptionId, resourceGroup and workspaceName together',
    });
  }
  return issues;
}
