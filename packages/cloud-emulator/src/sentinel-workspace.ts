import type { EntraAuthority } from '@threatlib/siem-emulator';
import { SENTINEL_DEFAULTS } from '@threatlib/siem-emulator';
import type { CloudRequest, CloudResponse } from './cloud-service.js';

/** The emulated tenant and workspace: the ids a test gives the integration, and the API limits. */
export interface SentinelTiConfig {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** The Log Analytics workspace GUID (`customerId`), the upload API's `{workspaceId}`. */
  workspaceId: string;
  subscriptionId: string;
  resourceGroup: string;
  workspaceName: string;
  /** Upload API requests one user may make per minute (Sentinel: 100). */
  requestsPerMinute: number;
  /** STIX objects per upload request (Sentinel: 100). */
  maxObjectsPerRequest: number;
}

/** The defaults: the Sentinel tenant of `@threatlib/siem-emulator`, and Sentinel's documented limits. */
export const SENTINEL_TI_DEFAULTS: Readonly<SentinelTiConfig> = {
  tenantId: SENTINEL_DEFAULTS.tenantId,
  clientId: SENTINEL_DEFAULTS.clientId,
  clientSecret: SENTINEL_DEFAULTS.clientSecret,
  workspaceId: SENTINEL_DEFAULTS.workspaceId,
  subscriptionId: SENTINEL_DEFAULTS.subscriptionId,
  resourceGroup: SENTINEL_DEFAULTS.resourceGroup,
  workspaceName: SENTINEL_DEFAULTS.workspaceName,
  requestsPerMinute: 100,
  maxObjectsPerRequest: 100,
};

/** A STIX object the upload API accepted: its latest version, by id. */
export interface StoredStixObject {
  sourcesystem: string;
  object: Record<string, unknown>;
  /** Epoch ms (the emulator's clock) of the request that brought it. */
  receivedAt: number;
}

/** One upload request that reached validation, with what became of each record. */
export interface ReceivedUpload {
  sourcesystem: string;
  objects: number;
  /** Index of each refused record, with Sentinel's messages. */
  errors: Array<{ recordIndex: number; errorMessages: string[] }>;
}

/** An indicator the legacy ARM API created: the resource it answers with. */
export interface StoredLegacyIndicator {
  id: string;
  name: string;
  etag: string;
  type: 'Microsoft.SecurityInsights/threatIntelligence';
  kind: 'indicator';
  properties: Record<string, unknown>;
}

/** A 429 a test asked for. */
export interface ScriptedThrottle {
  api: 'upload' | 'legacy';
  retryAfterSeconds: number;
}

/** The state the emulated APIs share. */
export interface SentinelTiState {
  readonly config: SentinelTiConfig;
  readonly authority: EntraAuthority;
  readonly objects: Map<string, StoredStixObject>;
  readonly uploads: ReceivedUpload[];
  readonly legacy: Map<string, StoredLegacyIndicator>;
  /** Upload request times by user (token `oid`), for the per-minute limit. */
  readonly requestTimes: Map<string, number[]>;
  readonly throttles: ScriptedThrottle[];
  now(): number;
}

/** The authority's handlers take the siem emulator's request shape, which adds when the request arrived. */
export function asEmulatorRequest(request: CloudRequest, now: number) {
  return { ...request, receivedAt: now };
}

/** Takes the first scripted 429 for `api`, if any, as the answer. */
export function scriptedThrottle(
  state: SentinelTiState,
  api: ScriptedThrottle['api'],
  body: (seconds: number) => unknown,
): CloudResponse | undefined {
  const index = state.throttles.findIndex((t) => t.api === api);
  if (index < 0) return undefined;
  const [throttle] = state.throttles.splice(index, 1);
  const seconds = throttle?.retryAfterSeconds ?? 1;
  return { status: 429, headers: { 'retry-after': String(seconds) }, body: body(seconds) };
}
