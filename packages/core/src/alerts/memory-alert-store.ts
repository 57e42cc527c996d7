import * as z from 'zod';
import { ValidationError } from '../errors/validation-error.js';
import type { Logger } from '../logging/logger.js';
import { parseRecord } from '../records/parse-record.js';
import { severityRank } from '../records/severity.js';
import { type Alert, type AlertInput, AlertInputSchema } from './alert.js';
import { type AlertDelivery, AlertDeliverySchema } from './alert-delivery.js';
import { fastAlertInput } from './alert-fast-path.js';
import type { AlertPage, AlertQuery, AlertStore } from './alert-store.js';
import { AlertDropLog, type MemoryAlertLimits, memoryAlertLimits, weighAlert } from './memory-alert-limits.js';
import { sealNormalisedAlert } from './normalised-alert.js';
import { querySeverityRank } from './query-severity.js';

const MAX_PAGE = 500;

interface Entry {
  alert: Alert;
  time: number;
  seq: number;
  bytes: number;
}

/** Options of {@link MemoryAlertStore}. */
export interface MemoryAlertStoreOptions extends Partial<MemoryAlertLimits> {
  /** Clock for the default timestamp and for spacing the "store is full" log lines. */
  now?: () => Date;
  /** Where the "store is full, dropped the oldest" warnings go (none without it). */
  logger?: Logger;
}

/** What a {@link MemoryAlertStore} holds, and how many alerts it dropped when full. */
export interface MemoryAlertStoreStats {
  alerts: number;
  /** The alerts' JSON, in UTF-8 bytes. */
  bytes: number;
  /** Alerts dropped to make room for new ones since the store was made. */
  dropped: number;
}

/**
 * An {@link AlertStore} in memory: the default, for a single process. Alerts are lost when the process ends; use a
 * store from `@threatlib/storage` to keep them. Lists newest first by alert timestamp.
 *
 * It is bounded: at most `maxAlerts` (10,000) alerts and `maxBytes` (32 MiB, each alert counted as its JSON) are
 * kept. When a new alert would pass either, the alerts stored first are dropped to make room, counted in
 * `stats().dropped` and reported by a warning on `logger` (at most one line a minute). One alert larger than
 * `maxBytes` is refused. Each alert is stored as a copy, so changing the object given afterwards changes nothing.
 *
 * @example
 * ```ts
 * const client = new ThreatClient(config, { alertStore: new MemoryAlertStore({ maxAlerts: 50_000 }) });
 * ```
 */
export class MemoryAlertStore implements AlertStore {
  readonly #entries: Entry[] = [];
  readonly #byId = new Map<string, Entry>();
  #seq = 0;
  #bytes = 0;
  readonly #now: () => Date;
  readonly #limits: MemoryAlertLimits;
  readonly #drops: AlertDropLog;

  /** @throws {RangeError} when `maxAlerts` or `maxBytes` is not a positive integer. */
  constructor(options: MemoryAlertStoreOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#limits = memoryAlertLimits(options);
    this.#drops = new AlertDropLog(options.logger, this.#limits, () => this.#now().getTime());
  }

  /** How many alerts and bytes it holds, and how many it dropped when full. */
  stats(): MemoryAlertStoreStats {
    return { alerts: this.#entries.length, bytes: this.#bytes, dropped: this.#drops.total };
  }

  async add(input: AlertInput): Promise<Alert> {
    const alert = normaliseAlert(input, this.#now());
    if (this.#byId.has(alert.id)) {
      throw new ValidationError('alert', [{ path: 'id', message: `an alert with id ${alert.id} is already stored` }]);
    }
    const { json, bytes } = weighAlert(alert);
    if (bytes > this.#limits.maxBytes) {
      throw new ValidationError('alert', [
        { path: '', message: `${bytes} bytes as JSON, larger than the store holds (${this.#limits.maxBytes} bytes)` },
      ]);
    }
    let dropped = 0;
    while (
      this.#entries.length > 0 &&
      (this.#entries.length >= this.#limits.maxAlerts || this.#bytes + bytes > this.#limits.maxBytes)
    ) {
      this.#drop(0);
      dropped++;
    }
    const entry: Entry = {
      alert: JSON.parse(json) as Alert,
      time: Date.parse(alert.timestamp),
      seq: this.#seq++,
      bytes,
    };
    this.#entries.push(entry);
    this.#byId.set(alert.id, entry);
    this.#bytes += bytes;
    this.#drops.dropped(dropped);
    return alert;
  }

  async get(id: string): Promise<Alert | undefined> {
    return this.#byId.get(id)?.alert;
  }

  /**
   * Replaces the alert's deliveries, keeping its place. Its new weight counts against `maxBytes` like a new alert's:
   * the alerts stored first (not this one) are dropped to make room, and deliveries that would make it larger than
   * the whole store are refused.
   */
  async updateDeliveries(id: string, deliveries: readonly AlertDelivery[]): Promise<Alert | undefined> {
    const parsed = parseRecord(DeliveriesSchema, deliveries, 'alert deliveries');
    const entry = this.#byId.get(id);
    if (!entry) return undefined;
    const { json, bytes } = weighAlert({ ...entry.alert, deliveries: parsed });
    if (bytes > this.#limits.maxBytes) {
      throw new ValidationError('alert deliveries', [
        {
          path: '',
          message: `the alert would be ${bytes} bytes as JSON, larger than the store holds (${this.#limits.maxBytes} bytes)`,
        },
      ]);
    }
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    entry.alert = JSON.parse(json) as Alert;
    let dropped = 0;
    for (let i = 0; this.#bytes > this.#limits.maxBytes && i < this.#entries.length; ) {
      if (this.#entries[i] === entry) i++;
      else {
        this.#drop(i);
        dropped++;
      }
    }
    this.#drops.dropped(dropped);
    return entry.alert;
  }

  /** Removes the entry at `index` of the insertion order. */
  #drop(index: number): void {
    const [gone] = this.#entries.splice(index, 1);
    if (!gone) return;
    this.#byId.delete(gone.alert.id);
    this.#bytes -= gone.bytes;
  }

  async list(query: AlertQuery = {}): Promise<AlertPage> {
    return this.#page(query, () => true);
  }

  /** The alerts with a delivery still `pending`, newest first, paged and filtered as `list` does. */
  async pending(query: AlertQuery = {}): Promise<AlertPage> {
    return this.#page(query, (e) => e.alert.deliveries.some((d) => d.status === 'pending'));
  }

  #page(query: AlertQuery, keep: (entry: Entry) => boolean): AlertPage {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), MAX_PAGE);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const since = query.since?.getTime();
    const minRank = query.minSeverity === undefined ? undefined : querySeverityRank(query.minSeverity);
    const ranks =
      query.severity === undefined
        ? undefined
        : new Set(severityList(query.severity).map((one) => querySeverityRank(one)));
    const matches = this.#entries
      .filter(keep)
      .filter((e) => after === undefined || e.time < after.time || (e.time === after.time && e.seq < after.seq))
      .filter((e) => minRank === undefined || severityRank(e.alert.severity) >= minRank)
      .filter((e) => ranks === undefined || ranks.has(severityRank(e.alert.severity)))
      .filter((e) => since === undefined || e.time >= since)
      .sort((a, b) => b.time - a.time || b.seq - a.seq);
    const page = matches.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((e) => e.alert),
      ...(matches.length > limit && last ? { nextCursor: encodeCursor(last) } : {}),
    };
  }
}

const DeliveriesSchema = z.array(AlertDeliverySchema).max(1000);

/**
 * Validates an alert input (either documented form) and gives it an id (unless it has one), a timestamp and its
 * deliveries (none yet); shared by every store so they agree.
 *
 * The record is deeply frozen and branded (`isNormalisedAlert` is true of it), so that what it is handed to (the
 * client's delivery to integrations, `SIEMConnector.sendAlerts`) need not validate it again. It holds nothing of
 * `input`: `metadata` and a delivery's `result` are copies as JSON (what every store keeps), so changing the input
 * afterwards changes nothing; copy the record (`structuredClone`) to change it.
 *
 * @throws {ValidationError} `Invalid alert: <field>: <reason>`, naming every field that is wrong.
 */
export function normaliseAlert(input: AlertInput, now: Date): Alert {
  // The common form is checked by hand; anything else (and every error) is the schema's.
  const data = fastAlertInput(input) ?? parseRecord(AlertInputSchema, input, 'alert');
  // Zod copies what its schemas describe; `metadata`'s values and a delivery's `result` are `unknown`, passed through
  // as the caller's own objects, which the record must not share (sealing it would freeze them).
  let owned = true;
  const deliveries = (data.deliveries ?? []).map((delivery) => {
    if (delivery.result === undefined) return delivery;
    const result = jsonCopy(delivery.result);
    if (result === NOT_JSON) {
      owned = false;
      return delivery;
    }
    const { result: _given, ...rest } = delivery;
    return result === undefined ? rest : { ...rest, result };
  });
  const alert: Alert = {
    id: data.id ?? globalThis.crypto.randomUUID(),
    title: data.title,
    severity: data.severity,
    ...(data.description === undefined ? {} : { description: data.description }),
    indicators: data.indicators,
    timestamp:
      data.timestamp !== undefined && CANONICAL_UTC.test(data.timestamp)
        ? data.timestamp
        : new Date(data.timestamp ?? now).toISOString(),
    ...(data.source === undefined ? {} : { source: data.source }),
    ...(data.riskScore === undefined ? {} : { riskScore: data.riskScore }),
    // The schema checked that metadata is JSON text of a bounded size.
    ...(data.metadata === undefined ? {} : { metadata: jsonCopy(data.metadata) as Record<string, unknown> }),
    deliveries,
  };
  // A result JSON cannot hold (a BigInt, a cycle) stays the caller's: the record is then not sealed.
  return owned ? sealNormalisedAlert(alert) : alert;
}

/**
 * What `toISOString` writes. A timestamp given in it (the schema checked it is a real date and time) is kept as it
 * is rather than parsed and written again, half a microsecond per alert.
 */
const CANONICAL_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const NOT_JSON: unique symbol = Symbol('not JSON');

/** `value` as JSON carries it (a new object; undefined for what JSON leaves out), or `NOT_JSON` (a cycle, a BigInt). */
function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** `severity` of a query as a list (one name or several), each checked. */
function severityList(severity: unknown): unknown[] {
  const list = Array.isArray(severity) ? severity : [severity];
  for (const one of list) querySeverityRank(one, 'severity');
  return list;
}

function encodeCursor(entry: Entry): string {
  return `${entry.time.toString(36)}.${entry.seq.toString(36)}`;
}

function decodeCursor(cursor: string): { time: number; seq: number } {
  const match = /^(-?[0-9a-z]{1,12})\.([0-9a-z]{1,12})$/.exec(cursor);
  const time = match ? Number.parseInt(match[1] as string, 36) : Number.NaN;
  const seq = match ? Number.parseInt(match[2] as string, 36) : Number.NaN;
  if (!Number.isSafeInteger(time) || !Number.isSafeInteger(seq)) {
    throw new ValidationError('alert query', [{ path: 'cursor', message: 'not a cursor this store issued' }]);
  }
  return { time, seq };
}
