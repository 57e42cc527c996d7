// What the Sentinel threat-intelligence client asks Azure Resource Manager: the Log Analytics workspace (for its
// GUID), and the legacy threat-intelligence indicator API. Sources:
// - Workspaces - Get (GET .../providers/Microsoft.OperationalInsights/workspaces/{name}; `properties.customerId` is
//   the workspace GUID): https://learn.microsoft.com/en-us/rest/api/loganalytics/workspaces/get
// - Threat Intelligence Indicator - Create Indicator (POST .../providers/Microsoft.SecurityInsights/
//   threatIntelligence/main/createIndicator, body `{kind: "indicator", properties: {...}}`, answer the
//   ThreatIntelligenceInformation resource) and - Create (PUT .../threatIntelligence/main/indicators/{name}), - Get:
//   https://learn.microsoft.com/en-us/rest/api/securityinsights/threat-intelligence-indicator/create-indicator
// - The properties the service requires of an indicator (display name, pattern, pattern type, source, valid from),
//   as azurerm's `azurerm_sentinel_threat_intelligence_indicator` documents them:
//   https://registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/sentinel_threat_intelligence_indicator
// - ARM's error answers (`{"error": {"code", "message"}}`; 401 InvalidAuthenticationTokenAudience...; api-version
//   errors; 404 SubscriptionNotFound / ResourceGroupNotFound / ResourceNotFound; 429 with Retry-After):
//   https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/common-deployment-errors
import { randomUUID } from 'node:crypto';
import {
  armAuthFailure,
  armFailure,
  armMethodNotAllowed,
  checkArmApiVersion,
  checkArmWorkspace,
  INCIDENT_API_VERSIONS,
  readArmJson,
} from '@threatlib/siem-emulator';
import type { CloudRequest, CloudResponse } from './cloud-service.js';
import { checkStixPattern } from './sentinel-stix-pattern.js';
import {
  asEmulatorRequest,
  type SentinelTiState,
  type StoredLegacyIndicator,
  scriptedThrottle,
} from './sentinel-workspace.js';

const WORKSPACE =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.OperationalInsights\/workspaces\/([^/]+)/i;
const WORKSPACE_ONLY = new RegExp(`${WORKSPACE.source}$`, 'i');
const THREAT_INTELLIGENCE = new RegExp(
  `${WORKSPACE.source}/providers/Microsoft\\.SecurityInsights/threatIntelligence/main/(createIndicator|indicators/([^/]+))$`,
  'i',
);

/** The api-versions of Workspaces - Get. */
export const SENTINEL_WORKSPACE_API_VERSIONS = ['2020-08-01', '2021-06-01', '2022-10-01', '2023-09-01', '2025-02-01'];

const ARM_AUDIENCES = ['https://management.azure.com', 'https://management.core.windows.net'];

/** Whether the request is one this file answers. */
export function isArm(request: CloudRequest): boolean {
  return WORKSPACE_ONLY.test(request.path) || THREAT_INTELLIGENCE.test(request.path);
}

/** Handles a workspace read or a legacy indicator call: authentication, api-version, the resource, the body. */
export function handleArm(state: SentinelTiState, request: CloudRequest): CloudResponse {
  const now = state.now();
  const token = state.authority.check(asEmulatorRequest(request, now), ARM_AUDIENCES);
  if (!token.ok) return armAuthFailure(token.problem, token.detail, state.config.tenantId);
  const legacy = THREAT_INTELLIGENCE.exec(request.path);
  const versions = legacy ? INCIDENT_API_VERSIONS : SENTINEL_WORKSPACE_API_VERSIONS;
  const refusedVersion = checkArmApiVersion(request.query, versions);
  if (refusedVersion) return refusedVersion;
  const [, subscription = '', group = '', name = ''] = WORKSPACE.exec(request.path) ?? [];
  const { config } = state;
  const elsewhere = checkArmWorkspace({ subscription, group, name }, config);
  if (elsewhere) return elsewhere;
  if (!legacy) {
    if (request.method !== 'GET') return armMethodNotAllowed(request.method);
    return { status: 200, body: workspaceResource(state) };
  }

  const throttled = scriptedThrottle(state, 'legacy', (seconds) => ({
    error: {
      code: 'TooManyRequests',
      message: `The request is being throttled as the limit has been reached for operation type - Write_ObservationWindow_00:05:00. Retry after ${seconds} seconds.`,
    },
  }));
  if (throttled) return throttled;

  const [, , , , action = '', rawName] = legacy;
  const indicatorName = rawName === undefined ? undefined : decodeURIComponent(rawName);
  if (indicatorName !== undefined && request.method === 'GET') {
    const found = state.legacy.get(indicatorName.toLowerCase());
    return found
      ? { status: 200, body: found }
      : armFailure(404, 'NotFound', `Threat intelligence indicator '${indicatorName}' was not found.`);
  }
  const creating = action.toLowerCase() === 'createindicator' ? 'POST' : 'PUT';
  if (request.method !== creating) return armMethodNotAllowed(request.method);
  const read = readArmJson(request);
  if (!read.ok) return read.response;
  const { body } = read;
  const kind = (body as { kind?: unknown } | null)?.kind;
  if (kind !== 'indicator') {
    return armFailure(
      400,
      'BadRequest',
      `The threat intelligence kind '${String(kind)}' is not supported: use 'indicator'.`,
    );
  }
  const properties = (body as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    return armFailure(400, 'BadRequest', "Required property 'properties' not found in JSON.");
  }
  const p = properties as Record<string, unknown>;
  const problem = legacyProblem(p);
  if (problem) return armFailure(400, 'BadRequest', problem);

  const id = indicatorName ?? randomUUID();
  const existing = state.legacy.get(id.toLowerCase());
  const stamp = new Date(now).toISOString();
  const indicator: StoredLegacyIndicator = {
    id: `/subscriptions/${config.subscriptionId}/resourceGroups/${config.resourceGroup}/providers/Microsoft.OperationalInsights/workspaces/${config.workspaceName}/providers/Microsoft.SecurityInsights/ThreatIntelligence/${id}`,
    name: id,
    etag: `"${randomUUID()}"`,
    type: 'Microsoft.SecurityInsights/threatIntelligence',
    kind: 'indicator',
    properties: {
      ...p,
      friendlyName: p.displayName,
      created: existing?.properties.created ?? stamp,
      lastUpdatedTimeUtc: stamp,
      additionalData: {},
    },
  };
  state.legacy.set(id.toLowerCase(), indicator);
  return { status: existing ? 200 : 201, body: indicator };
}

function legacyProblem(p: Record<string, unknown>): string | undefined {
  for (const name of ['displayName', 'pattern', 'patternType', 'source'] as const) {
    if (typeof p[name] !== 'string' || (p[name] as string).trim() === '') {
      return `Required property '${name}' not found in JSON.`;
    }
  }
  if (p.patternType === 'stix') {
    try {
      checkStixPattern(p.pattern as string);
    } catch (error) {
      return `The STIX pattern is invalid: ${(error as Error).message}.`;
    }
  }
  if (typeof p.validFrom !== 'string' || Number.isNaN(Date.parse(p.validFrom))) {
    return "Required property 'validFrom' not found in JSON, or not a date-time.";
  }
  if (p.validUntil !== undefined && (typeof p.validUntil !== 'string' || !(p.validUntil > p.validFrom))) {
    return "Property 'validUntil' must be a date-time later than 'validFrom'.";
  }
  if (p.confidence !== undefined) {
    const c = p.confidence;
    if (typeof c !== 'number' || !Number.isInteger(c) || c < 0 || c > 100) {
      return `Error converting value ${JSON.stringify(c)} to 'confidence': an integer from 0 to 100 is expected.`;
    }
  }
  for (const name of ['labels', 'threatTypes', 'indicatorTypes', 'threatIntelligenceTags'] as const) {
    const value = p[name];
    if (value !== undefined && (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))) {
      return `Property '${name}' must be an array of strings.`;
    }
  }
  return undefined;
}

function workspaceResource(state: SentinelTiState): unknown {
  const { config } = state;
  return {
    properties: {
      customerId: config.workspaceId,
      provisioningState: 'Succeeded',
      sku: { name: 'PerGB2018' },
      retentionInDays: 90,
      publicNetworkAccessForIngestion: 'Enabled',
      publicNetworkAccessForQuery: 'Enabled',
    },
    id: `/subscriptions/${config.subscriptionId}/resourceGroups/${config.resourceGroup}/providers/Microsoft.OperationalInsights/workspaces/${config.workspaceName}`,
    name: config.workspaceName,
    type: 'Microsoft.OperationalInsights/workspaces',
    location: 'westeurope',
  };
}
