import { ValidationError } from '../errors/validation-error.js';
import { parseRecord } from '../records/parse-record.js';
import { SEVERITIES, severityRank } from '../records/severity.js';
import { type Alert, type AlertInput, AlertInputSchema } from './alert.js';
import type { AlertPage, AlertQuery, AlertStore } from './alert-store.js';

const MAX_PAGE = 500;

interface Entry {
  alert: Alert;
  time: number;
  seq: number;
}

/**
 * An {@link AlertStore} in memory: the default, for a single process. Alerts are lost when the process ends; use a
 * store from `@threatlib/storage` to keep them. Lists newest first by alert timestamp.
 */
export class MemoryAlertStore implements AlertStore {
  readonly #entries: Entry[] = [];
  readonly #byId = new Map<string, Alert>();
  #seq = 0;
  readonly #now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  async add(input: AlertInput): Promise<Alert> {
    const alert = normaliseAlert(input, this.#now());
    if (this.#byId.has(alert.id)) {
      throw new ValidationError('alert', [{ path: 'id', message: `an alert with id ${alert.id} is already stored` }]);
    }
    this.#entries.push({ alert, time: Date.parse(alert.timestamp), seq: this.#seq++ });
    this.#byId.set(alert.id, alert);
    return alert;
  }

  async get(id: string): Promise<Alert | undefined> {
    return this.#byId.get(id);
  }

  async list(query: AlertQuery = {}): Promise<AlertPage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), MAX_PAGE);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const since = query.since?.getTime();
    const minRank = query.minSeverity === undefined ? undefined : rankOf(query.minSeverity);
    const matches = this.#entries
      .filter((e) => after === undefined || e.time < after.time || (e.time === after.time && e.seq < after.seq))
      .filter((e) => minRank === undefined || severityRank(e.alert.severity) >= minRank)
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

/**
 * Validates an alert input (either documented form) and gives it an id (unless it has one), a timestamp and its
 * deliveries (none yet); shared by every store so they agree.
 *
 * @throws {ValidationError} `Invalid alert: <field>: <reason>`, naming every field that is wrong.
 */
export function normaliseAlert(input: AlertInput, now: Date): Alert {
  const data = parseRecord(AlertInputSchema, input, 'alert');
  return {
    id: data.id ?? globalThis.crypto.randomUUID(),
    title: data.title,
    severity: data.severity,
    ...(data.description === undefined ? {} : { description: data.description }),
    indicators: data.indicators,
    timestamp: new Date(data.timestamp ?? now).toISOString(),
    ...(data.source === undefined ? {} : { source: data.source }),
    ...(data.riskScore === undefined ? {} : { riskScore: data.riskScore }),
    ...(data.metadata === undefined ? {} : { metadata: data.metadata }),
    deliveries: data.deliveries ?? [],
  };
}

function rankOf(severity: unknown): number {
  const rank = typeof severity === 'string' ? SEVERITIES.indexOf(severity.toLowerCase() as never) : -1;
  if (rank < 0) {
    throw new ValidationError('alert query', [
      { path: 'minSeverity', message: `expected one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(severity)}` },
    ]);
  }
  return rank;
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
