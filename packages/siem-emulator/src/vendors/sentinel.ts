// Microsoft Sentinel, as @threatlib/siem's `siem_d` platform reaches it through the Azure SDKs: the Entra ID token
// authority (sentinel-authority.ts), the Logs Ingestion API of a data collection endpoint (sentinel-ingestion.ts),
// the Log Analytics query API over the rows it ingested (sentinel-query.ts, sentinel-kql.ts) and Sentinel incidents
// through Azure Resource Manager (sentinel-incidents.ts). The real services live on four hosts; here they share the
// emulator's one HTTPS origin and are told apart by path, each SDK pointed at it with its endpoint option.
// Throttling answers (429 with Retry-After, the error body of each API):
// https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/request-limits-and-throttling
import { randomUUID } from 'node:crypto';
import type { EmulatorRequest, EmulatorResponse, VendorEmulator } from '../vendor.js';
import { EntraAuthority } from './sentinel-authority.js';
import { handleIncidents, isIncidents } from './sentinel-incidents.js';
import { handleIngestion, isIngestion } from './sentinel-ingestion.js';
import { handleQuery, isQuery } from './sentinel-query.js';
import {
  type DroppedRow,
  SENTINEL_DEFAULTS,
  type SentinelConfig,
  type SentinelWorkspace,
  type StoredIncident,
} from './sentinel-workspace.js';

/** Options of the Sentinel emulator: any of {@link SENTINEL_DEFAULTS} to change, and a clock. */
export interface SentinelEmulatorOptions extends Partial<SentinelConfig> {
  /** Epoch ms now, for token expiry and query time spans (default `Date.now`). */
  now?: () => number;
}

/**
 * The emulated Sentinel tenant: what it ingested (`rows`), dropped (`dropped`) and the incidents it holds, with
 * `addRows` to seed the workspace and `config` for the ids to give the connector.
 */
export class SentinelEmulator implements VendorEmulator {
  readonly vendor = 'sentinel' as const;
  readonly config: SentinelConfig;
  readonly authority: EntraAuthority;
  readonly #workspace: SentinelWorkspace;
  #incidentNumber = 0;

  constructor(options: SentinelEmulatorOptions = {}) {
    const { now = Date.now, ...overrides } = options;
    this.config = { ...SENTINEL_DEFAULTS, deny: {}, ...overrides };
    this.authority = new EntraAuthority(
      this.config.tenantId,
      [{ clientId: this.config.clientId, clientSecret: this.config.clientSecret, objectId: randomUUID() }],
      now,
    );
    this.#workspace = {
      config: this.config,
      authority: this.authority,
      tables: new Map([[this.config.table, { columns: this.config.columns, rows: [] }]]),
      dropped: [],
      incidents: new Map(),
      now,
      nextIncidentNumber: () => ++this.#incidentNumber,
    };
  }

  /** The rows of the rule's output table (or of `table`), as stored. */
  rows(table = this.config.table): ReadonlyArray<Record<string, unknown>> {
    return this.#workspace.tables.get(table)?.rows ?? [];
  }

  /** Rows the rule's pipeline dropped, with why (the workspace's `DCRLogErrors`). */
  get dropped(): readonly DroppedRow[] {
    return this.#workspace.dropped;
  }

  /** The incidents, by id (lower case). */
  get incidents(): ReadonlyMap<string, StoredIncident> {
    return this.#workspace.incidents;
  }

  /** Adds rows to a table of the workspace (creating it with `columns` when new), as if ingested earlier. */
  addRows(rows: ReadonlyArray<Record<string, unknown>>, table = this.config.table): void {
    const existing = this.#workspace.tables.get(table);
    if (existing) existing.rows.push(...rows.map((row) => ({ ...row })));
    else this.#workspace.tables.set(table, { columns: this.config.columns, rows: rows.map((row) => ({ ...row })) });
  }

  handles(request: EmulatorRequest): boolean {
    return this.authority.handles(request) || isIngestion(request) || isQuery(request) || isIncidents(request);
  }

  handle(request: EmulatorRequest): EmulatorResponse {
    if (this.authority.handles(request)) return this.authority.handle(request);
    if (isIngestion(request)) return handleIngestion(this.#workspace, request);
    if (isQuery(request)) return handleQuery(this.#workspace, request);
    return handleIncidents(this.#workspace, request);
  }

  busy(request: EmulatorRequest): EmulatorResponse {
    const retryAfter = String(this.config.busyRetryAfter);
    if (this.authority.handles(request)) {
      return {
        status: 429,
        headers: { 'retry-after': retryAfter },
        body: {
          error: 'temporarily_unavailable',
          error_description:
            'AADSTS50196: The server terminated an operation because it encountered a client request loop.',
          error_codes: [50196],
        },
      };
    }
    if (isQuery(request)) {
      return {
        status: 429,
        headers: { 'retry-after': retryAfter },
        body: { error: { message: 'Too many requests', code: 'ThrottledError', correlationId: randomUUID() } },
      };
    }
    const message = isIngestion(request)
      ? 'Rate limit for the data collection rule was exceeded; retry after the time in the Retry-After header.'
      : `The request is being throttled as the limit has been reached for operation type - Write_ObservationWindow_00:05:00. Retry after ${retryAfter} seconds.`;
    return {
      status: 429,
      headers: { 'retry-after': retryAfter, 'x-ms-error-code': 'TooManyRequests' },
      body: { error: { code: 'TooManyRequests', message } },
    };
  }

  reset(): void {
    for (const table of this.#workspace.tables.values()) table.rows.length = 0;
    this.#workspace.dropped.length = 0;
    this.#workspace.incidents.clear();
    this.authority.issued.length = 0;
    this.#incidentNumber = 0;
  }
}

/** A Sentinel emulator with `options` (the other vendors' files make theirs the same way). */
export function createSentinelEmulator(options: SentinelEmulatorOptions = {}): SentinelEmulator {
  return new SentinelEmulator(options);
}
