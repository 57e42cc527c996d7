import type { EntraAuthority } from './sentinel-authority.js';
import type { KqlColumn } from './sentinel-kql.js';

/** What the emulated Azure tenant holds: one app, one data collection rule, one Sentinel workspace. */
export interface SentinelConfig {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** The data collection rule's immutable id (`dcr-` and 32 hex digits). */
  dataCollectionRuleId: string;
  /** The stream the rule declares (`Custom-...`), and the table it sends rows to. */
  streamName: string;
  table: string;
  /** The stream declaration's columns (rows are kept with these; others are dropped, as the rule's transform does). */
  columns: readonly KqlColumn[];
  /** The Log Analytics workspace id (a GUID), for queries. */
  workspaceId: string;
  /** Where the workspace sits in ARM, for incidents. */
  subscriptionId: string;
  resourceGroup: string;
  workspaceName: string;
  /** Seconds the "busy" answers ask to wait (`Retry-After`). */
  busyRetryAfter: number;
  /** APIs on which the app lacks its role (403 with the API's own body), for tests of authorization failures. */
  deny: { ingestion?: boolean; query?: boolean; incidents?: boolean };
}

/** The columns of the alerts stream @threatlib/siem writes (`Custom-ThreatlibAlerts`, table `ThreatlibAlerts_CL`). */
export const THREATLIB_ALERT_COLUMNS: readonly KqlColumn[] = [
  { name: 'TimeGenerated', type: 'datetime' },
  { name: 'AlertId', type: 'string' },
  { name: 'Title', type: 'string' },
  { name: 'Severity', type: 'string' },
  { name: 'Description', type: 'string' },
  { name: 'Source', type: 'string' },
  { name: 'RiskScore', type: 'real' },
  { name: 'Indicators', type: 'dynamic' },
];

/** The emulated tenant's defaults: the ids tests pass to the connector. */
export const SENTINEL_DEFAULTS: Readonly<Omit<SentinelConfig, 'deny'>> = {
  tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
  clientId: '5535a0e8-f392-4962-a240-6e1f0a5b1c2d',
  clientSecret: 'emulator~client~secret~value~0123456789',
  dataCollectionRuleId: 'dcr-6c0f2a1b9d8e4f7a8b3c2d1e0f9a8b7c',
  streamName: 'Custom-ThreatlibAlerts',
  table: 'ThreatlibAlerts_CL',
  columns: THREATLIB_ALERT_COLUMNS,
  workspaceId: '3c1e0d2b-5a4f-4e6d-9c8b-7a6f5e4d3c2b',
  subscriptionId: '9b7a6c5d-4e3f-4a2b-8c1d-0e9f8a7b6c5d',
  resourceGroup: 'rg-security',
  workspaceName: 'law-sentinel',
  busyRetryAfter: 1,
};

/** A row the rule's pipeline dropped (what the workspace's `DCRLogErrors` table would say). */
export interface DroppedRow {
  row: unknown;
  reason: string;
}

/** An incident as the emulator keeps it: the ARM resource it answers with. */
export interface StoredIncident {
  id: string;
  name: string;
  type: 'Microsoft.SecurityInsights/Incidents';
  etag: string;
  properties: Record<string, unknown>;
}

/** The state the Sentinel APIs share. */
export interface SentinelWorkspace {
  readonly config: SentinelConfig;
  readonly authority: EntraAuthority;
  /** Tables of the workspace by name (the rule's output table is there from the start, empty). */
  readonly tables: Map<string, { columns: readonly KqlColumn[]; rows: Array<Record<string, unknown>> }>;
  readonly dropped: DroppedRow[];
  readonly incidents: Map<string, StoredIncident>;
  now(): number;
  /** The next incident number (Sentinel numbers incidents one by one per workspace). */
  nextIncidentNumber(): number;
}
