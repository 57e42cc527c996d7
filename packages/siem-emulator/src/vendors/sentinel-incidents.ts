// Microsoft Sentinel incidents through Azure Resource Manager. Sources:
// - Incidents - Create Or Update (PUT .../providers/Microsoft.SecurityInsights/incidents/{incidentId}; required
//   properties.title, properties.severity (High, Medium, Low, Informational), properties.status (New, Active,
//   Closed); 200 when it updated, 201 when it created; read-only incidentNumber, incidentUrl, createdTimeUtc...):
//   https://learn.microsoft.com/en-us/rest/api/securityinsights/incidents/create-or-update?view=rest-securityinsights-2025-09-01
// - Incidents - Get and - List ($top): https://learn.microsoft.com/en-us/rest/api/securityinsights/incidents/list
// - ARM's authentication answers (401 AuthenticationFailed, InvalidAuthenticationToken, ExpiredAuthenticationToken,
//   InvalidAuthenticationTokenAudience, InvalidAuthenticationTokenTenant, with WWW-Authenticate), api-version
//   errors (MissingApiVersionParameter, InvalidApiVersionParameter), 404 SubscriptionNotFound /
//   ResourceGroupNotFound / ResourceNotFound, 403 AuthorizationFailed, 415 UnsupportedMediaType:
//   https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/common-deployment-errors
import { randomUUID } from 'node:crypto';
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';
import {
  armAuthFailure,
  armFailure,
  armMethodNotAllowed,
  checkArmApiVersion,
  checkArmWorkspace,
  readArmJson,
} from './azure-arm.js';
import type { SentinelWorkspace, StoredIncident } from './sentinel-workspace.js';

const PATH =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.OperationalInsights\/workspaces\/([^/]+)\/providers\/Microsoft\.SecurityInsights\/incidents(?:\/([^/]+))?$/i;

/** The api-versions of Microsoft.SecurityInsights the emulator accepts (the stable ones and the SDK's default). */
export const INCIDENT_API_VERSIONS = [
  '2022-09-01-preview',
  '2023-02-01',
  '2023-11-01',
  '2024-03-01',
  '2024-09-01',
  '2025-03-01',
  '2025-06-01',
  '2025-09-01',
];

const SEVERITIES = ['High', 'Medium', 'Low', 'Informational'];
const STATUSES = ['New', 'Active', 'Closed'];
const CLASSIFICATIONS = ['Undetermined', 'TruePositive', 'BenignPositive', 'FalsePositive'];

/** Whether the request is for the incidents API. */
export function isIncidents(request: EmulatorRequest): boolean {
  return PATH.test(request.path);
}

/** Handles one incidents call: authentication, then the api-version and the resource path, then the body. */
export function handleIncidents(workspace: SentinelWorkspace, request: EmulatorRequest): EmulatorResponse {
  const { config } = workspace;
  const token = workspace.authority.check(request, [
    'https://management.azure.com',
    'https://management.core.windows.net',
  ]);
  if (!token.ok) return armAuthFailure(token.problem, token.detail, config.tenantId);
  const refusedVersion = checkArmApiVersion(request.query, INCIDENT_API_VERSIONS);
  if (refusedVersion) return refusedVersion;
  const [, subscription = '', group = '', name = '', rawId] = PATH.exec(request.path) ?? [];
  const elsewhere = checkArmWorkspace({ subscription, group, name }, config);
  if (elsewhere) return elsewhere;
  const action = request.method === 'PUT' ? 'write' : 'read';
  if (config.deny.incidents) {
    return armFailure(
      403,
      'AuthorizationFailed',
      `The client '${token.claims.oid}' with object id '${token.claims.oid}' does not have authorization to perform action 'Microsoft.SecurityInsights/incidents/${action}' over scope '${request.path}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
    );
  }
  const id = rawId === undefined ? undefined : decodeURIComponent(rawId);
  if (id === undefined) {
    if (request.method !== 'GET') return armMethodNotAllowed(request.method);
    const top = Number(request.query.get('$top') ?? '50');
    return { status: 200, body: { value: [...workspace.incidents.values()].slice(0, Math.max(0, top)) } };
  }
  if (request.method === 'GET') {
    const incident = workspace.incidents.get(id.toLowerCase());
    return incident ? { status: 200, body: incident } : armFailure(404, 'NotFound', `Incident '${id}' was not found.`);
  }
  if (request.method !== 'PUT') return armMethodNotAllowed(request.method);
  const read = readArmJson(request);
  if (!read.ok) return read.response;
  const { body } = read;
  const properties = (body as { properties?: unknown } | null)?.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    return armFailure(400, 'BadRequest', "Required property 'properties' not found in JSON.");
  }
  const p = properties as Record<string, unknown>;
  const problem = validate(p);
  if (problem) return armFailure(400, 'BadRequest', problem);
  const existing = workspace.incidents.get(id.toLowerCase());
  const etag = (body as { etag?: unknown }).etag;
  if (existing && typeof etag === 'string' && etag !== existing.etag) {
    return armFailure(412, 'PreconditionFailed', 'The incident was changed since it was read (etag mismatch).');
  }
  const now = new Date(workspace.now()).toISOString();
  const resourceId = `/subscriptions/${config.subscriptionId}/resourceGroups/${config.resourceGroup}/providers/Microsoft.OperationalInsights/workspaces/${config.workspaceName}/providers/Microsoft.SecurityInsights/Incidents/${id}`;
  const number = existing ? (existing.properties.incidentNumber as number) : workspace.nextIncidentNumber();
  const owner = (p.owner ?? {}) as Record<string, unknown>;
  const incident: StoredIncident = {
    id: resourceId,
    name: id,
    type: 'Microsoft.SecurityInsights/Incidents',
    etag: `"${randomUUID()}"`,
    properties: {
      title: p.title,
      description: p.description ?? '',
      severity: p.severity,
      status: p.status,
      ...(p.classification === undefined ? {} : { classification: p.classification }),
      owner: {
        objectId: owner.objectId ?? null,
        email: owner.email ?? null,
        assignedTo: owner.assignedTo ?? owner.email ?? null,
        userPrincipalName: owner.userPrincipalName ?? null,
        ownerType: owner.ownerType ?? (owner.email || owner.userPrincipalName ? 'User' : 'Unknown'),
      },
      labels: Array.isArray(p.labels) ? p.labels.map((l) => ({ labelType: 'User', ...(l as object) })) : [],
      firstActivityTimeUtc: p.firstActivityTimeUtc ?? null,
      lastActivityTimeUtc: p.lastActivityTimeUtc ?? null,
      lastModifiedTimeUtc: now,
      createdTimeUtc: existing ? existing.properties.createdTimeUtc : now,
      incidentNumber: number,
      additionalData: { alertsCount: 0, bookmarksCount: 0, commentsCount: 0, alertProductNames: [], tactics: [] },
      relatedAnalyticRuleIds: [],
      incidentUrl: `https://portal.azure.com/#asset/Microsoft_Azure_Security_Insights/Incident${resourceId}`,
      providerName: 'Azure Sentinel',
      providerIncidentId: String(number),
    },
  };
  workspace.incidents.set(id.toLowerCase(), incident);
  return { status: existing ? 200 : 201, body: incident };
}

function validate(p: Record<string, unknown>): string | undefined {
  if (typeof p.title !== 'string' || p.title.trim() === '') return "Required property 'title' not found in JSON.";
  if (p.severity === undefined) return "Required property 'severity' not found in JSON.";
  if (!SEVERITIES.includes(p.severity as string)) {
    return `Error converting value ${JSON.stringify(p.severity)} to type 'IncidentSeverity'. Allowed values: ${SEVERITIES.join(', ')}.`;
  }
  if (p.status === undefined) return "Required property 'status' not found in JSON.";
  if (!STATUSES.includes(p.status as string)) {
    return `Error converting value ${JSON.stringify(p.status)} to type 'IncidentStatus'. Allowed values: ${STATUSES.join(', ')}.`;
  }
  if (p.status === 'Closed' && !CLASSIFICATIONS.includes(p.classification as string)) {
    return 'A classification is required to close an incident.';
  }
  if (p.description !== undefined && typeof p.description !== 'string')
    return "Property 'description' must be a string.";
  if (p.owner !== undefined) {
    const owner = p.owner as Record<string, unknown>;
    if (typeof owner !== 'object' || owner === null || Array.isArray(owner))
      return "Property 'owner' must be an object.";
    for (const key of ['email', 'userPrincipalName', 'assignedTo', 'objectId']) {
      if (owner[key] !== undefined && typeof owner[key] !== 'string')
        return `Property 'owner.${key}' must be a string.`;
    }
  }
  if (p.labels !== undefined) {
    if (!Array.isArray(p.labels)) return "Property 'labels' must be an array.";
    for (const label of p.labels) {
      if (typeof (label as { labelName?: unknown })?.labelName !== 'string') {
        return "Required property 'labelName' not found in JSON (labels).";
      }
    }
  }
  return undefined;
}
