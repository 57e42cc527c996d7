// Reading a `_bulk` answer. An HTTP 200 says only that the request was read: each item has its own `status` and,
// when it failed, `error: {type, reason, caused_by}`; `errors: true` says at least one did.
// https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-bulk (response body, "items")
// https://www.elastic.co/docs/reference/elasticsearch/clients/javascript/bulk_examples (checking items for errors)
// Which item failures are worth sending again: 429 (es_rejected_execution_exception: the write queue is full;
// circuit_breaking_exception: memory pressure) and 503 (unavailable_shards_exception): the JavaScript client's own
// bulk helper retries only 429s; a primary that is not yet allocated (503) also clears by itself.

/** One item of a bulk answer, as the client returns it. */
export interface BulkItem {
  status: number;
  _id?: string | null;
  _index?: string;
  result?: string;
  error?: BulkItemError;
}

/** An item's error. */
export interface BulkItemError {
  type?: string;
  reason?: string | null;
  caused_by?: BulkItemError;
}

/** What a bulk answer amounts to for a batch of alerts, in the batch's order. */
export interface BulkOutcome {
  /** Alerts written by this request. */
  created: number;
  /** Alerts already in the index under their id (written by an earlier attempt or delivery). */
  duplicates: number;
  /** Items that failed, with their position in the batch. */
  failures: BulkFailure[];
}

/** One failed item. */
interface BulkFailure {
  /** Position in the batch. */
  position: number;
  status: number;
  /** `mapper_parsing_exception: failed to parse field [...]` (with the cause when there is one). */
  reason: string;
  /** Whether sending it again may succeed (429, 503). */
  retryable: boolean;
}

const RETRYABLE_ITEM_STATUS = new Set([429, 503]);

/**
 * Sorts the items of a bulk answer to `create` actions: 201 created, 409 `version_conflict_engine_exception`
 * already there (the `_id` is the alert's id), anything else a failure.
 *
 * @throws {Error} when the answer has not one item per action (it is not a bulk answer for this request).
 */
export function readBulkItems(
  items: ReadonlyArray<Record<string, BulkItem | undefined>>,
  expected: number,
): BulkOutcome {
  if (items.length !== expected) {
    throw new Error(`the bulk answer has ${items.length} items for ${expected} actions`);
  }
  const outcome: BulkOutcome = { created: 0, duplicates: 0, failures: [] };
  items.forEach((wrapper, position) => {
    const item = wrapper.create ?? Object.values(wrapper)[0];
    if (!item) {
      outcome.failures.push({ position, status: 0, reason: 'no answer for this item', retryable: false });
      return;
    }
    if (item.status >= 200 && item.status < 300) {
      outcome.created += 1;
    } else if (item.status === 409 && item.error?.type === 'version_conflict_engine_exception') {
      outcome.duplicates += 1;
    } else {
      outcome.failures.push({
        position,
        status: item.status,
        reason: itemReason(item.error),
        retryable: RETRYABLE_ITEM_STATUS.has(item.status),
      });
    }
  });
  return outcome;
}

/** `type: reason (caused by type: reason)`, as far as Elasticsearch gave them. */
export function itemReason(error: BulkItemError | undefined): string {
  if (!error) return 'no reason given';
  const head = [error.type, error.reason].filter((part) => typeof part === 'string' && part).join(': ');
  const cause = error.caused_by ? itemReason(error.caused_by) : '';
  if (!cause || head.includes(cause)) return head || 'no reason given';
  return `${head || 'error'} (caused by ${cause})`;
}
