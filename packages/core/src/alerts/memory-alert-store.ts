import { toConfigurationIssues } from '../config/format-issues.js';
import { ValidationError } from '../errors/validation-error.js';
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
    const matches = this.#entries
      .filter((e) => after === undefined || e.time < after.time || (e.time === after.time && e.seq < after.seq))
      .filter((e) => query.minSeverity === undefined || e.alert.severity >= query.minSeverity)
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

/** Validates an alert input and gives it an id and timestamp; shared by every store so they agree. */
export function normaliseAlert(input: AlertInput, now: Date): Alert {
  const parsed = AlertInputSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError('alert', toConfigurationIssues(parsed.error.issues));
  const data = parsed.data;
  return {
    id: globalThis.crypto.randomUUID(),
    title: data.title,
    severity: data.severity,
    indicators: data.indicators,
    timestamp: new Date(data.timestamp ?? now).toISOString(),
    ...(data.description === undefined ? {} : { description: data.description }),
    ...(data.source === undefined ? {} : { source: data.source }),
    ...(data.metadata === undefined ? {} : { metadata: data.metadata }),
  };
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
