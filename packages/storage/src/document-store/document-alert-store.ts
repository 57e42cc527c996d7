import {
  type Alert,
  type AlertDelivery,
  AlertDeliverySchema,
  type AlertInput,
  type AlertPage,
  type AlertQuery,
  parseRecord,
  SEVERITIES,
  severityRank,
  ValidationError,
} from '@threatlib/core';
import { type AlertStore, normaliseAlert } from '@threatlib/core/integration';
import { type Collection, MongoServerError, ObjectId } from 'mongodb';
import { z } from 'zod';

/** Largest page `list` returns. */
const MAX_PAGE = 500;
/** Largest alert kept, as JSON in UTF-8 (a MongoDB document holds at most 16 MiB). */
export const MAX_ALERT_BYTES = 8 * 1024 * 1024;
const DUPLICATE_KEY = 11000;

const DeliveriesSchema = z.array(AlertDeliverySchema).max(1000);

/**
 * An alert as stored: the alert (without its deliveries) and its deliveries each as JSON text, so that whatever an
 * alert's metadata or a delivery's result holds (keys with `$` or `.`) is kept exactly; beside them the fields
 * `list` filters and sorts on.
 */
export interface AlertDocument {
  /** The alert's id. */
  _id: string;
  /** The alert's timestamp. */
  time: Date;
  /** Insertion order among alerts of the same time (an ObjectId's hex: time, then a counter). */
  seq: string;
  /** `severityRank(severity)`, for `minSeverity`. */
  rank: number;
  /** Whether a delivery is `pending`, for `pending()`: kept with `deliveries`, in the same write. */
  pending: boolean;
  alert: string;
  deliveries: string;
}

/** What a {@link DocumentAlertStore} needs from its document store. */
export interface AlertCollectionAccess {
  /** The alerts collection, once the store is connected. */
  collection(): Promise<Collection<AlertDocument>>;
  /** Runs a driver call, turning its failure into a `StorageError`. */
  run<T>(operation: 'store' | 'query', work: () => Promise<T>): Promise<T>;
  now(): Date;
}

/**
 * Core's `AlertStore` on a document store's `alerts` collection: alerts and their deliveries survive a restart.
 * Lists newest first by alert timestamp, then by insertion order; pages with an opaque cursor. `pending()` lists
 * those with a delivery still `pending` (a `pending` flag kept beside the deliveries, indexed), which the client
 * resumes when it starts.
 */
export class DocumentAlertStore implements AlertStore {
  readonly #access: AlertCollectionAccess;

  constructor(access: AlertCollectionAccess) {
    this.#access = access;
  }

  async add(input: AlertInput): Promise<Alert> {
    const alert = normaliseAlert(input, this.#access.now());
    const { deliveries, ...rest } = alert;
    const document: AlertDocument = {
      _id: alert.id,
      time: new Date(alert.timestamp),
      seq: new ObjectId().toHexString(),
      rank: severityRank(alert.severity),
      pending: hasPending(deliveries),
      alert: JSON.stringify(rest),
      deliveries: JSON.stringify(deliveries),
    };
    checkSize(document.alert + document.deliveries, 'alert');
    const collection = await this.#access.collection();
    try {
      await this.#access.run('store', () => collection.insertOne(document));
    } catch (error) {
      if (isDuplicateKey(error)) {
        throw new ValidationError('alert', [{ path: 'id', message: `an alert with id ${alert.id} is already stored` }]);
      }
      throw error;
    }
    return alert;
  }

  async get(id: string): Promise<Alert | undefined> {
    if (typeof id !== 'string') return undefined;
    const collection = await this.#access.collection();
    const document = await this.#access.run('query', () => collection.findOne({ _id: id }));
    return document === null ? undefined : toAlert(document);
  }

  async list(query: AlertQuery = {}): Promise<AlertPage> {
    return this.#page(query, {});
  }

  /** The alerts with a delivery still `pending`, newest first, paged and filtered as `list` does. */
  async pending(query: AlertQuery = {}): Promise<AlertPage> {
    return this.#page(query, { pending: true });
  }

  async #page(query: AlertQuery, only: Record<string, unknown>): Promise<AlertPage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), MAX_PAGE);
    const filter: Record<string, unknown> = { ...only };
    if (query.minSeverity !== undefined) filter.rank = { $gte: rankOf(query.minSeverity) };
    if (query.since !== undefined) {
      if (!(query.since instanceof Date) || Number.isNaN(query.since.getTime())) {
        throw new ValidationError('alert query', [{ path: 'since', message: 'expected a valid Date' }]);
      }
      filter.time = { $gte: query.since };
    }
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const conditions: Record<string, unknown>[] = [filter];
    if (after) {
      conditions.push({ $or: [{ time: { $lt: after.time } }, { time: after.time, seq: { $lt: after.seq } }] });
    }
    const collection = await this.#access.collection();
    const documents = await this.#access.run('query', () =>
      collection
        .find(conditions.length === 1 ? filter : { $and: conditions })
        .sort({ time: -1, seq: -1 })
        .limit(limit + 1)
        .toArray(),
    );
    const page = documents.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(toAlert),
      ...(documents.length > limit && last ? { nextCursor: encodeCursor(last) } : {}),
    };
  }

  async updateDeliveries(id: string, deliveries: readonly AlertDelivery[]): Promise<Alert | undefined> {
    const parsed = parseRecord(DeliveriesSchema, deliveries, 'alert deliveries');
    const json = JSON.stringify(parsed);
    checkSize(json, 'alert deliveries');
    const collection = await this.#access.collection();
    const updated = await this.#access.run('store', () =>
      collection.findOneAndUpdate(
        { _id: id },
        { $set: { deliveries: json, pending: hasPending(parsed) } },
        { returnDocument: 'after' },
      ),
    );
    return updated === null ? undefined : toAlert(updated);
  }
}

function hasPending(deliveries: readonly AlertDelivery[]): boolean {
  return deliveries.some((delivery) => delivery.status === 'pending');
}

function toAlert(document: AlertDocument): Alert {
  return { ...(JSON.parse(document.alert) as Omit<Alert, 'deliveries'>), deliveries: JSON.parse(document.deliveries) };
}

function checkSize(text: string, subject: string): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes; count the bytes only when that bound is too high.
  if (text.length * 3 <= MAX_ALERT_BYTES) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_ALERT_BYTES) {
    throw new ValidationError(subject, [
      { path: '', message: `${bytes} bytes as JSON, larger than the store keeps (${MAX_ALERT_BYTES} bytes)` },
    ]);
  }
}

function isDuplicateKey(error: unknown): boolean {
  const cause = (error as { cause?: unknown }).cause ?? error;
  return cause instanceof MongoServerError && cause.code === DUPLICATE_KEY;
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

function encodeCursor(document: AlertDocument): string {
  return `${document.time.getTime().toString(36)}.${document.seq}`;
}

function decodeCursor(cursor: string): { time: Date; seq: string } {
  const match = typeof cursor === 'string' ? /^(-?[0-9a-z]{1,12})\.([0-9a-f]{24})$/.exec(cursor) : null;
  const time = match ? Number.parseInt(match[1] as string, 36) : Number.NaN;
  if (!match || !Number.isSafeInteger(time)) {
    throw new ValidationError('alert query', [{ path: 'cursor', message: 'not a cursor this store issued' }]);
  }
  return { time: new Date(time), seq: match[2] as string };
}
