import type { Alert, AlertDelivery, AlertInput, AlertPage, AlertQuery } from '@threatlib/core';
import { type AlertStore, normaliseAlert, severityRank } from '@threatlib/core/integration';
import { type Collection, MongoServerError, ObjectId } from 'mongodb';
import {
  alertPageQuery,
  alreadyStored,
  checkAlertSize,
  decodeAlertCursor,
  encodeAlertCursor,
  hasPending,
  parseDeliveries,
} from '../contract/alert-records.js';

const DUPLICATE_KEY = 11000;

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
    checkAlertSize(document.alert + document.deliveries, 'alert');
    const collection = await this.#access.collection();
    try {
      await this.#access.run('store', () => collection.insertOne(document));
    } catch (error) {
      if (isDuplicateKey(error)) throw alreadyStored(alert.id);
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
    const { limit, minRank, ranks, since } = alertPageQuery(query);
    const filter: Record<string, unknown> = { ...only };
    if (minRank !== undefined || ranks !== undefined) {
      filter.rank = {
        ...(minRank === undefined ? {} : { $gte: minRank }),
        ...(ranks === undefined ? {} : { $in: ranks }),
      };
    }
    if (since !== undefined) filter.time = { $gte: since };
    const after = query.cursor === undefined ? undefined : decodeAlertCursor(query.cursor, '[0-9a-f]{24}');
    const conditions: Record<string, unknown>[] = [filter];
    if (after) {
      const time = new Date(after.time);
      conditions.push({ $or: [{ time: { $lt: time } }, { time, seq: { $lt: after.seq } }] });
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
      ...(documents.length > limit && last ? { nextCursor: encodeAlertCursor(last.time.getTime(), last.seq) } : {}),
    };
  }

  async updateDeliveries(id: string, deliveries: readonly AlertDelivery[]): Promise<Alert | undefined> {
    const parsed = parseDeliveries(deliveries);
    const json = JSON.stringify(parsed);
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

function toAlert(document: AlertDocument): Alert {
  return { ...(JSON.parse(document.alert) as Omit<Alert, 'deliveries'>), deliveries: JSON.parse(document.deliveries) };
}

function isDuplicateKey(error: unknown): boolean {
  const cause = (error as { cause?: unknown }).cause ?? error;
  return cause instanceof MongoServerError && cause.code === DUPLICATE_KEY;
}
