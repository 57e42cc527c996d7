// The contract between the outgoing webhooks (`@threatlib/webhooks`, which delivers) and whatever keeps their
// deliveries (its own file outbox, `@threatlib/storage`'s document store): neither package depends on the other, so
// the contract is core's.

/**
 * One delivery waiting in an outbox: a message for one endpoint, kept from before its first attempt until it
 * succeeded or finally failed. Holds no secret: each attempt is signed with the endpoint's secret of the moment.
 */
export interface WebhookOutboxEntry {
  /** `<endpoint>\n<messageId>`: unique in an outbox. */
  key: string;
  /** The Standard Webhooks `webhook-id`, the same for every attempt and every endpoint of one message. */
  messageId: string;
  /** Name of the endpoint (`addOutgoing`'s `name`). */
  endpoint: string;
  /** The event name (`high-confidence-threat`). */
  event: string;
  /** The exact body POSTed: `{"type", "timestamp", "data"}`. */
  body: string;
  /** When the delivery was created, epoch ms. */
  createdAt: number;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due, epoch ms. */
  nextAttemptAt: number;
  /** Why the last attempt failed, if one did (never a secret). */
  lastError?: string;
}

/**
 * Where outgoing deliveries wait: the contract a storage back end implements to keep them (the webhooks' file outbox
 * is the default). `put` must be durable when it resolves (the delivery survives a crash from then on); `remove` may
 * be lazy (a delivery removed but resent after a crash is a duplicate the receiver drops by its `webhook-id`).
 *
 * @example
 * ```ts
 * // Kept in memory, so not durable: for tests. `new WebhookManager({ delivery: { outbox: new MemoryOutbox() } })`.
 * class MemoryOutbox implements WebhookOutbox {
 *   readonly #entries = new Map<string, WebhookOutboxEntry>();
 *   async open() { return [...this.#entries.values()]; }
 *   async put(entry: WebhookOutboxEntry) { this.#entries.set(entry.key, entry); }
 *   async remove(key: string) { this.#entries.delete(key); }
 *   async close() {}
 * }
 * ```
 */
export interface WebhookOutbox {
  /** Opens the outbox (taking whatever lock it needs) and resolves with every entry still waiting. */
  open(): Promise<WebhookOutboxEntry[]>;
  /** Adds `entry`, or replaces the entry with its key; durable when the promise resolves. */
  put(entry: WebhookOutboxEntry): Promise<void>;
  /** Removes the entry with `key` (nothing when there is none). */
  remove(key: string): Promise<void>;
  /** Writes what is buffered and releases files, sockets and locks. */
  close(): Promise<void>;
}

/**
 * The delivery `value` holds (what an outbox read back: a journal line, a stored document), with only the contract's
 * fields; undefined when it is not one (a field missing or of another type, a count that is not a whole number).
 * An outbox leaves such a record alone rather than deliver it.
 */
export function webhookOutboxEntry(value: unknown): WebhookOutboxEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { key, messageId, endpoint, event, body, createdAt, attempts, nextAttemptAt, lastError } = value as Partial<
    Record<keyof WebhookOutboxEntry, unknown>
  >;
  if (
    typeof key !== 'string' ||
    typeof messageId !== 'string' ||
    typeof endpoint !== 'string' ||
    typeof event !== 'string' ||
    typeof body !== 'string' ||
    !Number.isFinite(createdAt) ||
    !Number.isInteger(attempts) ||
    !Number.isFinite(nextAttemptAt) ||
    (lastError !== undefined && typeof lastError !== 'string')
  ) {
    return undefined;
  }
  return {
    key,
    messageId,
    endpoint,
    event,
    body,
    createdAt: createdAt as number,
    attempts: attempts as number,
    nextAttemptAt: nextAttemptAt as number,
    ...(lastError === undefined ? {} : { lastError }),
  };
}
