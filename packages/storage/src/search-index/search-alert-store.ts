import { createHash } from 'node:crypto';
import type { Client, estypes } from '@elastic/elasticsearch';
import type { Alert, AlertDelivery, AlertInput, AlertPage, AlertQuery } from '@threatlib/core';
import { type AlertStore, normaliseAlert, severityRank } from '@threatlib/core/integration';
import {
  alertPageQuery,
  alreadyStored,
  checkAlertSize,
  decodeAlertCursor,
  encodeAlertCursor,
  hasPending,
  parseDeliveries,
} from '../contract/alert-records.js';
import { DocumentIds } from './document-id.js';
import { runRequest } from './elasticsearch-errors.js';
import type { RefreshTracker } from './refresh-tracker.js';

/** An alert as a document of the alert index. */
interface AlertSource {
  /** The alert's timestamp. */
  time: string;
  /** Insertion order among alerts of the same time: sortable, unique (see `DocumentIds`). */
  seq: string;
  /** `severityRank(severity)`, for `minSeverity`. */
  rank: number;
  /** Whether a delivery is `pending`, for `pending()`. */
  pending: boolean;
  alert: Omit<Alert, 'deliveries'>;
  deliveries: AlertDelivery[];
}

/** What a {@link SearchAlertStore} needs from its search index. */
export interface AlertIndexAccess {
  client: Client;
  /** The alert index's name, once the store is started (it creates the index). */
  index(): Promise<string>;
  refresh: RefreshTracker;
  now(): Date;
}

/**
 * Core's `AlertStore` on a search index's `alerts` index: alerts and their deliveries survive a restart. The `_id` is
 * a hash of the alert's id (which may be longer than Elasticsearch's ids); reads by id are real-time, and `list`
 * sees every write this store acknowledged. Lists newest first by alert timestamp, then by insertion order; pages
 * with an opaque cursor.
 */
export class SearchAlertStore implements AlertStore {
  readonly #access: AlertIndexAccess;
  readonly #ids = new DocumentIds();

  constructor(access: AlertIndexAccess) {
    this.#access = access;
  }

  async add(input: AlertInput): Promise<Alert> {
    const alert = normaliseAlert(input, this.#access.now());
    const { deliveries, ...rest } = alert;
    const document: AlertSource = {
      time: alert.timestamp,
      seq: this.#ids.next(this.#access.now().getTime()),
      rank: severityRank(alert.severity),
      pending: hasPending(deliveries),
      alert: rest,
      deliveries,
    };
    checkAlertSize(JSON.stringify(document), 'alert');
    const index = await this.#access.index();
    const answer = await runRequest('store', 'alerts', () =>
      this.#access.client.create({ index, id: alertId(alert.id), document }, { ignore: [409] }),
    );
    if ((answer as { status?: number }).status === 409 || answer.result === undefined) throw alreadyStored(alert.id);
    this.#access.refresh.written('alerts');
    return alert;
  }

  async get(id: string): Promise<Alert | undefined> {
    if (typeof id !== 'string' || id.length === 0) return undefined;
    const index = await this.#access.index();
    const answer = await runRequest('query', 'alerts', () =>
      this.#access.client.get<AlertSource>({ index, id: alertId(id) }, { ignore: [404] }),
    );
    return answer.found && answer._source ? toAlert(answer._source) : undefined;
  }

  list(query: AlertQuery = {}): Promise<AlertPage> {
    return this.#page(query, []);
  }

  /** The alerts with a delivery still `pending`, newest first, paged and filtered like `list`. */
  pending(query: AlertQuery = {}): Promise<AlertPage> {
    return this.#page(query, [{ term: { pending: true } }]);
  }

  async #page(query: AlertQuery, filter: estypes.QueryDslQueryContainer[]): Promise<AlertPage> {
    const { limit, minRank, ranks, since } = alertPageQuery(query);
    if (minRank !== undefined) filter.push({ range: { rank: { gte: minRank } } });
    if (ranks !== undefined) filter.push({ terms: { rank: ranks } });
    if (since !== undefined) filter.push({ range: { time: { gte: since.toISOString() } } });
    const after = query.cursor === undefined ? undefined : decodeAlertCursor(query.cursor, '[0-9a-zA-Z_-]{1,40}');
    const index = await this.#access.index();
    await this.#access.refresh.beforeSearch('alerts');
    const answer = await runRequest('query', 'alerts', () =>
      this.#access.client.search<AlertSource>({
        index,
        query: { bool: { filter } },
        sort: [{ time: { order: 'desc' } }, { seq: { order: 'desc' } }],
        size: limit + 1,
        ...(after ? { search_after: [after.time, after.seq] } : {}),
        track_total_hits: false,
      }),
    );
    const hits = answer.hits.hits;
    const page = hits.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((hit) => toAlert(hit._source as AlertSource)),
      ...(hits.length > limit && last ? { nextCursor: cursorAfter(last._source as AlertSource) } : {}),
    };
  }

  async updateDeliveries(id: string, deliveries: readonly AlertDelivery[]): Promise<Alert | undefined> {
    const parsed = parseDeliveries(deliveries);
    if (typeof id !== 'string' || id.length === 0) return undefined;
    const index = await this.#access.index();
    // A partial update (no script): arrays are replaced as a whole, so `deliveries` becomes exactly `parsed`.
    const answer = await runRequest('store', 'alerts', () =>
      this.#access.client.update<AlertSource, Partial<AlertSource>>(
        {
          index,
          id: alertId(id),
          doc: { deliveries: parsed, pending: hasPending(parsed) },
          _source: true,
          retry_on_conflict: 5,
        },
        { ignore: [404] },
      ),
    );
    const source = answer.get?._source as AlertSource | undefined;
    if (source === undefined || source === null) return undefined;
    this.#access.refresh.written('alerts');
    return toAlert(source);
  }
}

/** The `_id` of an alert: a hash of its id (up to 200 characters, more than Elasticsearch's 512 bytes in UTF-8). */
function alertId(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

function toAlert(source: AlertSource): Alert {
  return { ...source.alert, deliveries: source.deliveries };
}

function cursorAfter(source: AlertSource): string {
  return encodeAlertCursor(Date.parse(source.time), source.seq);
}
