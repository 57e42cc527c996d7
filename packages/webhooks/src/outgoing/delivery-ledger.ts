// What the outgoing side remembers of finished deliveries (the last ones, the counters per endpoint) and how a
// delivery is reported to callers.
import type { Clock } from '@threatlib/core/integration';
import type { DeliveryRecord, DeliveryResult, DeliveryStatus, EndpointDeliveryStats } from './delivery-record.js';
import type { OutboxEntry } from './outbox/outbox.js';

/** What an attempt's answer says of a delivery: its status code, why it failed. */
export interface DeliveryDetail {
  statusCode?: number;
  error?: string;
}

/** The counters of one endpoint, as the ledger keeps them. */
export type EndpointCounters = Omit<EndpointDeliveryStats, 'pending' | 'disabled'>;

/** A finished delivery as the history keeps it. */
interface Finished {
  entry: OutboxEntry;
  status: 'delivered' | 'failed';
  detail: DeliveryDetail;
  finishedAt: number;
}

/** The last finished deliveries (up to `history`) and the counters of every endpoint since the manager was made. */
export class DeliveryLedger {
  /** The last finished deliveries, oldest first; made into records only when `deliveries()` asks. */
  readonly #history: Finished[] = [];
  readonly #stats = new Map<string, EndpointCounters>();
  readonly #limit: number;

  constructor(history: number) {
    this.#limit = history;
  }

  /** Names of the endpoints that have counters. */
  names(): IterableIterator<string> {
    return this.#stats.keys();
  }

  /** Counts a finished delivery and keeps it in the history. */
  keep(entry: OutboxEntry, status: 'delivered' | 'failed', detail: DeliveryDetail, clock: Pick<Clock, 'now'>): void {
    const counters = this.counters(entry.endpoint);
    if (status === 'delivered') counters.delivered += 1;
    else counters.failed += 1;
    if (this.#limit > 0) {
      this.#history.push({ entry, status, detail, finishedAt: clock.now() });
      if (this.#history.length > this.#limit) this.#history.shift();
    }
  }

  /** The result of the delivery of `key` if it was delivered and is still in the history. */
  delivered(key: string): DeliveryResult | undefined {
    const done = this.#history.find((finished) => finished.entry.key === key && finished.status === 'delivered');
    return done && deliveryResult(done.entry, done.status, done.detail);
  }

  /** The finished deliveries kept, oldest first, as records. */
  records(): DeliveryRecord[] {
    return this.#history.map(({ entry, status, detail, finishedAt }) => ({
      ...deliveryRecord(entry, status, detail),
      finishedAt: new Date(finishedAt).toISOString(),
    }));
  }

  /** The counters of `endpoint`, made at zero on first use. */
  counters(endpoint: string): EndpointCounters {
    let counters = this.#stats.get(endpoint);
    if (!counters) {
      counters = { delivered: 0, failed: 0, blocked: 0, retried: 0, attempts: 0 };
      this.#stats.set(endpoint, counters);
    }
    return counters;
  }
}

/** How a delivery stands, as `trigger` resolves it. */
export function deliveryResult(
  entry: OutboxEntry,
  status: DeliveryStatus,
  detail: DeliveryDetail = {},
): DeliveryResult {
  const error = detail.error ?? (status === 'pending' ? entry.lastError : undefined);
  return {
    endpoint: entry.endpoint,
    messageId: entry.messageId,
    status,
    attempts: entry.attempts,
    ...(detail.statusCode === undefined ? {} : { statusCode: detail.statusCode }),
    ...(error === undefined ? {} : { error }),
    ...(status === 'pending' ? { nextAttemptAt: new Date(entry.nextAttemptAt).toISOString() } : {}),
  };
}

/** How a delivery stands, as `deliveries()` lists it. */
export function deliveryRecord(entry: OutboxEntry, status: DeliveryStatus, detail: DeliveryDetail = {}) {
  return {
    ...deliveryResult(entry, status, detail),
    event: entry.event,
    createdAt: new Date(entry.createdAt).toISOString(),
  };
}
