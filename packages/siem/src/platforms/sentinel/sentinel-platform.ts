// Microsoft Sentinel (siem_d) on Azure's SDKs: alerts through the Logs Ingestion API, cases as Sentinel incidents
// through Azure Resource Manager, enrichment by a Log Analytics query, credentials through @azure/identity.
// - LogsIngestionClient(endpoint, credential).upload(ruleId, streamName, logs) (gzip, 1 MB chunks):
//   https://learn.microsoft.com/en-us/javascript/api/overview/azure/monitor-ingestion-readme
// - SecurityInsights(credential, subscriptionId, {endpoint, credentialScopes, apiVersion}).incidents.createOrUpdate(
//   resourceGroupName, workspaceName, incidentId, incident):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/arm-securityinsight/incidents
// - LogsQueryClient(credential, {endpoint}).queryWorkspace(workspaceId, kql, {duration}) (@azure/monitor-query-logs,
//   the successor of the deprecated @azure/monitor-query's LogsQueryClient):
//   https://learn.microsoft.com/en-us/javascript/api/overview/azure/monitor-query-logs-readme
// - Every client takes `agent` (the connector's TLS: its `ca`, `rejectUnauthorized`) and `retryOptions` (0: the
//   connector retries): https://learn.microsoft.com/en-us/javascript/api/@azure/core-rest-pipeline/pipelineoptions
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:https';
import type { SecurityInsights } from '@azure/arm-securityinsight';
import type { TokenCredential } from '@azure/identity';
import type { LogsIngestionClient } from '@azure/monitor-ingestion';
import type { LogsQueryClient } from '@azure/monitor-query-logs';
import {
  type Alert,
  type Case,
  type EnrichedIndicator,
  EnrichedIndicatorSchema,
  type IndicatorRecord,
  parseRecord,
} from '@threatlib/core';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';
import type {
  ConnectionReport,
  DeliveryReceipt,
  PlatformCall,
  PlatformLimits,
  PlatformSettings,
  SiemPlatform,
} from '../platform.js';
import { audiencesFor, type SentinelAudiences, scopeOf } from './sentinel-clouds.js';
import { sentinelCredential } from './sentinel-credential.js';
import { sentinelFailure } from './sentinel-failures.js';
import { enrichmentQuery } from './sentinel-kql.js';
import { INCIDENTS_API_VERSION, type SentinelOptions } from './sentinel-options.js';
import { alertRow, incidentOf } from './sentinel-records.js';
import type { SentinelSdk } from './sentinel-sdk.js';

type Options = ResolvedCommonOptions & SentinelOptions;

/** The most bytes of JSON rows the ingestion SDK sends in one request (it splits larger uploads into chunks). */
const INGESTION_CHUNK_BYTES = 1_000_000;

/**
 * One upload is one request: 1,000 alerts and 900 KB of alert JSON, under the Logs Ingestion API's 1 MB per call
 * (a row is an alert's JSON less its delivery records, so a batch's rows stay under the SDK's chunk size).
 */
const LIMITS: PlatformLimits = { maxBatchAlerts: 1_000, maxBatchBytes: 900_000 };

/** Microsoft Sentinel as a `SiemPlatform`. */
export class SentinelPlatform implements SiemPlatform {
  readonly limits = LIMITS;
  readonly #options: Options;
  readonly #settings: PlatformSettings<SentinelOptions>;
  readonly #agent: Agent;
  readonly #credential: TokenCredential;
  readonly #audiences: SentinelAudiences;
  readonly #ingestion: LogsIngestionClient;
  readonly #query: LogsQueryClient;
  readonly #arm: SecurityInsights | undefined;
  /** The incident id of each case, kept across the attempts of one `createCase`: a retried PUT updates, not adds. */
  readonly #caseIds = new WeakMap<Case, string>();

  constructor(settings: PlatformSettings<SentinelOptions>, sdk: SentinelSdk) {
    this.#settings = settings;
    const options = settings.options;
    this.#options = options;
    const { ca, rejectUnauthorized, servername } = options.tls;
    this.#agent = new Agent({
      keepAlive: true,
      rejectUnauthorized,
      ...(ca === undefined ? {} : { ca: Array.isArray(ca) ? ca.map(pem) : pem(ca) }),
      ...(servername === undefined ? {} : { servername }),
    });
    this.#audiences = audiencesFor(options.authorityHost);
    this.#credential = sentinelCredential(options.credentials, sdk.identity, {
      tenantId: options.tenantId,
      authorityHost: options.authorityHost,
      agent: this.#agent,
      secrets: settings.secrets,
    });
    const pipeline = { agent: this.#agent, retryOptions: { maxRetries: 0 } };
    this.#ingestion = new sdk.ingestion.LogsIngestionClient(settings.http.origin(), this.#credential, {
      ...pipeline,
      audience: this.#audiences.ingestion,
    });
    this.#query = new sdk.query.LogsQueryClient(this.#credential, {
      ...pipeline,
      endpoint: `${options.logAnalyticsEndpoint}/v1`,
      credentials: { scopes: [scopeOf(this.#audiences.query)] },
    });
    this.#arm =
      options.subscriptionId === undefined || sdk.arm === undefined
        ? undefined
        : new sdk.arm.SecurityInsights(this.#credential, options.subscriptionId, {
            ...pipeline,
            endpoint: options.armEndpoint,
            credentialScopes: [scopeOf(this.#audiences.arm)],
            apiVersion: INCIDENTS_API_VERSION,
          });
  }

  async sendAlerts(batch: readonly Alert[], call: PlatformCall): Promise<DeliveryReceipt> {
    const rows = batch.map(alertRow);
    const bytes = rows.reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row)), 0);
    if (bytes >= INGESTION_CHUNK_BYTES) {
      throw call.errors.request(
        `the alert is ${bytes} bytes as a row; the Logs Ingestion API takes at most 1 MB per call`,
        { isRetryable: false },
      );
    }
    const { dataCollectionRuleId, streamName } = this.#options;
    await this.#run(call, 'Logs Ingestion API', () =>
      this.#ingestion.upload(dataCollectionRuleId, streamName, rows, { maxConcurrency: 1, abortSignal: call.signal }),
    );
    return { platform: 'siem_d', accepted: batch.length, dataCollectionRuleId, streamName };
  }

  async createCase(input: Case, call: PlatformCall): Promise<string> {
    const arm = this.#arm;
    const { resourceGroup, workspaceName } = this.#options;
    if (!arm || resourceGroup === undefined || workspaceName === undefined) {
      throw call.errors.unsupported(
        'cases are Sentinel incidents in Azure Resource Manager: set subscriptionId, resourceGroup and workspaceName',
      );
    }
    const id = this.#caseIds.get(input) ?? randomUUID();
    this.#caseIds.set(input, id);
    const incident = await this.#run(call, 'Sentinel incidents', () =>
      arm.incidents.createOrUpdate(resourceGroup, workspaceName, id, incidentOf(input), { abortSignal: call.signal }),
    );
    this.#settings.logger.debug(
      { platform: 'siem_d', incident: incident.name, incidentNumber: incident.incidentNumber },
      'Sentinel incident written',
    );
    return incident.name ?? id;
  }

  async enrichIndicator(indicator: IndicatorRecord, call: PlatformCall): Promise<EnrichedIndicator> {
    const result = await this.#run(call, 'Log Analytics', () =>
      this.#query.queryWorkspace(
        this.#options.workspaceId,
        enrichmentQuery(this.#options.table, indicator),
        { duration: this.#options.lookback },
        { abortSignal: call.signal },
      ),
    );
    if (result.status !== 'Success') {
      throw call.errors.request(`Log Analytics answered a partial result: ${result.partialError?.message ?? ''}`, {
        isRetryable: true,
      });
    }
    const table = result.tables[0];
    const row = table?.rows[0] ?? [];
    const cell = (name: string): unknown => row[table?.columnDescriptors.findIndex((c) => c.name === name) ?? -1];
    const now = new Date(this.#settings.clock.now()).toISOString();
    const events = Number(cell('Events') ?? 0);
    const risk = Number(cell('RiskScore') ?? 0);
    return parseRecord(
      EnrichedIndicatorSchema,
      {
        indicator: indicator.value,
        firstSeen: events > 0 ? (isoTime(cell('FirstSeen')) ?? now) : now,
        lastSeen: events > 0 ? (isoTime(cell('LastSeen')) ?? now) : now,
        associatedEvents: Number.isInteger(events) && events > 0 ? events : 0,
        riskScore: Number.isFinite(risk) && risk > 0 ? risk : 0,
      },
      'enriched indicator',
    );
  }

  async testConnection(call: PlatformCall): Promise<ConnectionReport> {
    const checks: Record<string, string> = {};
    await this.#run(call, 'Entra ID', () =>
      // As the SDKs' bearer policies ask (with continuous access evaluation), so the token lands in their cache.
      this.#credential.getToken(scopeOf(this.#audiences.ingestion), { abortSignal: call.signal, enableCae: true }),
    );
    checks.token = `Entra ID issued a token for ${this.#audiences.ingestion}`;
    const { table, lookback, workspaceId } = this.#options;
    const counted = await this.#run(call, 'Log Analytics', () =>
      this.#query.queryWorkspace(workspaceId, `${table} | count`, { duration: lookback }, { abortSignal: call.signal }),
    );
    const count = counted.status === 'Success' ? counted.tables[0]?.rows[0]?.[0] : undefined;
    checks.workspace = `${table} answered: ${String(count ?? '?')} rows in ${lookback}`;
    const arm = this.#arm;
    const { resourceGroup, workspaceName } = this.#options;
    if (arm && resourceGroup !== undefined && workspaceName !== undefined) {
      await this.#run(call, 'Sentinel incidents', async () => {
        const pages = arm.incidents.list(resourceGroup, workspaceName, { top: 1, abortSignal: call.signal }).byPage();
        await pages.next();
      });
      checks.incidents = `incidents of ${workspaceName} readable`;
    }
    return { platform: 'siem_d', checks };
  }

  async close(): Promise<void> {
    this.#agent.destroy();
  }

  /**
   * Runs one SDK call within the attempt: its failure mapped to the connector's errors, and its promise given up
   * when the attempt's signal aborts (an SDK that does not pass the signal down, such as MSAL's metadata request,
   * must not hold the attempt past its timeout).
   */
  async #run<T>(call: PlatformCall, api: string, work: () => Promise<T>): Promise<T> {
    call.signal.throwIfAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(call.signal.reason);
      call.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work(), aborted]);
    } catch (error) {
      throw sentinelFailure(error, call, api);
    } finally {
      if (onAbort) call.signal.removeEventListener('abort', onAbort);
    }
  }
}

function pem(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
}

function isoTime(value: unknown): string | undefined {
  const time = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
