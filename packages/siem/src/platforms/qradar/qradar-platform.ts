// IBM QRadar (platform siem_b). QRadar has no REST call that creates an event or an offense: events arrive through
// log sources, and offenses are opened by QRadar's own rules from those events. So alerts and cases are LEEF events
// sent by syslog (TLS or TCP) to a QRadar listener, their indicators go into reference sets (where rules test events
// against them), and a case given an offense id is added to that offense as a note. Enrichment is an Ariel search
// over the events QRadar holds, with the reference sets' first_seen / last_seen when no event matched.
// Sources: see qradar-api.ts, qradar-answers.ts, reference-sets.ts, ariel-search.ts, syslog-sender.ts and
// qradar-events.ts; offense notes and offenses:
// - https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--siem-offenses-offense_id-notes-POST.html
// - https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--siem-offenses-offense_id-GET.html
// - https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--system-about-GET.html
import { randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import type { Alert, Case, EnrichedIndicator, IndicatorRecord } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';
import { EventFormatError } from '../../formats/event-format-error.js';
import type {
  CaseOptions,
  ConnectionReport,
  DeliveryReceipt,
  PlatformCall,
  PlatformLimits,
  PlatformSettings,
  SiemPlatform,
} from '../platform.js';
import { enrichmentQuery, runArielSearch } from './ariel-search.js';
import { QradarApi } from './qradar-api.js';
import { alertMessage, caseMessage, type EventSettings } from './qradar-events.js';
import { QRADAR_TCP_SYSLOG_PORT, QRADAR_TLS_SYSLOG_PORT, type QradarOptions } from './qradar-options.js';
import { addToReferenceSet, findReferenceElement } from './reference-sets.js';
import { probeSyslog, type SyslogTarget, sendSyslog } from './syslog-sender.js';

/** Longest note text sent (it travels in the query string). */
const MAX_NOTE_CHARS = 2000;

/** QRadar through its REST API and a syslog listener. */
export class QradarPlatform implements SiemPlatform {
  readonly limits: PlatformLimits = { maxBatchAlerts: 500, maxBatchBytes: 4 * 1024 * 1024 };
  readonly #options: ResolvedCommonOptions & QradarOptions;
  readonly #api: QradarApi;
  readonly #clock: Clock;
  readonly #syslog: SyslogTarget;
  readonly #events: EventSettings;
  /** The id of each case being created, kept across the attempts of one `createCase`. */
  readonly #caseIds = new WeakMap<Case, string>();

  constructor(settings: PlatformSettings<QradarOptions>) {
    const options = settings.options;
    this.#options = options;
    this.#api = new QradarApi(settings.http, options, settings.logger);
    this.#clock = settings.clock;
    const protocol = options.syslog.protocol;
    this.#syslog = {
      host: options.syslog.host ?? options.host,
      port: options.syslog.port ?? (protocol === 'tls' ? QRADAR_TLS_SYSLOG_PORT : QRADAR_TCP_SYSLOG_PORT),
      protocol,
      framing: options.syslog.framing ?? (protocol === 'tls' ? 'octet-counting' : 'lf'),
      tls: options.tls,
    };
    this.#events = {
      leefVersion: options.leefVersion,
      hostname: options.syslog.hostname ?? osHostname(),
      maxMessageBytes: options.syslog.maxMessageBytes,
    };
  }

  /**
   * Adds the batch's indicators to the alert reference set (which also proves the credentials: syslog has none),
   * then sends one LEEF event per alert over one syslog connection.
   */
  async sendAlerts(batch: readonly Alert[], call: PlatformCall): Promise<DeliveryReceipt> {
    const now = new Date(this.#clock.now());
    const messages = batch.map((alert) => this.#message(call, () => alertMessage(alert, now, this.#events)));
    const sets = this.#options.referenceSets;
    const values = batch.flatMap((alert) => alert.indicators.map((indicator) => indicator.value));
    const added = await addToReferenceSet(this.#api, call, sets.alerts, values, sets.domain);
    await sendSyslog(call, this.#syslog, messages);
    return {
      platform: 'siem_b',
      accepted: batch.length,
      syslog: `${this.#syslog.protocol}://${this.#syslog.host}:${this.#syslog.port}`,
      referenceSet: sets.alerts,
      indicators: added,
    };
  }

  /**
   * Opens a case the way QRadar allows: checks the offense when one is given, adds the indicators to the case
   * reference set, sends the case as a LEEF event (EventID `ThreatCase`) and, with an offense, adds a note to it.
   * Resolves with the case id: the `caseId` attribute of the event (`threatlib-case-<uuid>`), which an Ariel search
   * finds and the note quotes.
   */
  async createCase(input: Case, call: PlatformCall, extras: CaseOptions = {}): Promise<string> {
    let caseId = this.#caseIds.get(input);
    if (caseId === undefined) {
      caseId = `threatlib-case-${randomUUID()}`;
      this.#caseIds.set(input, caseId);
    }
    const offenseId = extras.offenseId;
    if (offenseId !== undefined) {
      await this.#api.json(
        call,
        { method: 'GET', path: `/siem/offenses/${offenseId}`, query: { fields: 'id' } },
        `reading offense ${offenseId}`,
      );
    }
    const id = caseId;
    // Written first: an indicator that cannot be written refuses the case before anything reaches a reference set.
    const message = this.#message(call, () => caseMessage(input, id, new Date(this.#clock.now()), this.#events));
    const sets = this.#options.referenceSets;
    const values = input.indicators.map((indicator) => indicator.value);
    await addToReferenceSet(this.#api, call, sets.cases, values, sets.domain);
    await sendSyslog(call, this.#syslog, [message]);
    if (offenseId !== undefined) {
      await this.#api.json(
        call,
        {
          method: 'POST',
          path: `/siem/offenses/${offenseId}/notes`,
          query: { note_text: noteText(input, caseId) },
        },
        `adding case ${caseId} to offense ${offenseId} as a note (the case event was sent)`,
        [201],
      );
    }
    return caseId;
  }

  /**
   * Counts and dates the events mentioning the indicator with one Ariel search; when none matched, the reference
   * sets' `first_seen` / `last_seen` date it if threatlib added it. `riskScore` is the highest `riskScore` property
   * of the matching events, else their highest magnitude (0–10).
   */
  async enrichIndicator(indicator: IndicatorRecord, call: PlatformCall): Promise<EnrichedIndicator> {
    const searchedAt = new Date(this.#clock.now()).toISOString();
    const enrichment = this.#options.enrichment;
    const rows = await runArielSearch(
      this.#api,
      call,
      enrichmentQuery(indicator, enrichment),
      this.#clock,
      enrichment.pollInterval,
    );
    const row = rows[0] ?? {};
    const count = numberOf(row.event_count) ?? 0;
    const first = numberOf(row.first_seen);
    const last = numberOf(row.last_seen);
    if (count > 0 && first !== undefined && last !== undefined) {
      return {
        indicator: indicator.value,
        firstSeen: new Date(first).toISOString(),
        lastSeen: new Date(Math.max(first, last)).toISOString(),
        associatedEvents: Math.round(count),
        riskScore: Math.max(0, numberOf(row.risk_score) ?? numberOf(row.max_magnitude) ?? 0),
      };
    }
    const sets = this.#options.referenceSets;
    const elements = [
      await findReferenceElement(this.#api, call, sets.alerts, indicator.value),
      await findReferenceElement(this.#api, call, sets.cases, indicator.value),
    ].filter((element) => element?.first_seen !== undefined && element.last_seen !== undefined);
    if (elements.length === 0) {
      return {
        indicator: indicator.value,
        firstSeen: searchedAt,
        lastSeen: searchedAt,
        associatedEvents: 0,
        riskScore: 0,
      };
    }
    const firstSeen = Math.min(...elements.map((e) => e?.first_seen as number));
    const lastSeen = Math.max(firstSeen, ...elements.map((e) => e?.last_seen as number));
    return {
      indicator: indicator.value,
      firstSeen: new Date(firstSeen).toISOString(),
      lastSeen: new Date(lastSeen).toISOString(),
      associatedEvents: 0,
      riskScore: 0,
    };
  }

  /** Reads `/system/about` (credentials and API version) and opens a connection to the syslog listener. */
  async testConnection(call: PlatformCall): Promise<ConnectionReport> {
    const about = await this.#api.json<{ external_version?: string; release_name?: string }>(
      call,
      { method: 'GET', path: '/system/about' },
      'reading /system/about',
    );
    const version = about.external_version ?? about.release_name;
    await probeSyslog(call, this.#syslog);
    return {
      platform: 'siem_b',
      ...(version === undefined ? {} : { version }),
      checks: {
        api: `QRadar ${version ?? '(version not reported)'} accepted the credentials (API version ${this.#api.apiVersion})`,
        syslog: `${this.#syslog.protocol === 'tls' ? 'TLS' : 'TCP'} syslog listener at ${this.#syslog.host}:${this.#syslog.port} accepted a connection`,
      },
    };
  }

  /**
   * A message, or a request error (never retried) when the event cannot fit QRadar's maximum payload length or
   * cannot be written (an indicator value that is not one indicator of its type).
   */
  #message(call: PlatformCall, make: () => string): string {
    try {
      return make();
    } catch (error) {
      if (!(error instanceof RangeError) && !EventFormatError.isInstance(error)) throw error;
      throw call.errors.request(error.message, { isRetryable: false });
    }
  }
}

function numberOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** The note a case adds to an offense: the case id, title, priority, assignee, description and indicators. */
function noteText(input: Case, caseId: string): string {
  const lines = [
    `threatlib case ${caseId}: ${input.title}`,
    `Priority: ${input.priority}${input.assignee ? `; assignee: ${input.assignee}` : ''}`,
    ...(input.description ? [input.description] : []),
    ...(input.indicators.length > 0
      ? [
          `Indicators: ${input.indicators.map((i) => `${i.type} ${i.value}${i.source ? ` (${i.source})` : ''}`).join(', ')}`,
        ]
      : []),
  ];
  const text = lines.join('\n');
  return text.length > MAX_NOTE_CHARS ? `${text.slice(0, MAX_NOTE_CHARS - 1)}…` : text;
}
