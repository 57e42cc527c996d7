/**
 * One delivery waiting in an outbox: a message for one endpoint, kept from before its first attempt until it
 * succeeded or finally failed. Holds no secret: each attempt is signed with the endpoint's secret of the moment.
 */
export interface OutboxEntry {
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
 * Where outgoing deliveries wait: the contract a storage back end implements to keep them (the file outbox is the
 * default). `put` must be durable when it resolves (the delivery survives a crash from then on); `remove` may be
 * lazy (a delivery removed but resent after a crash is a duplicate the receiver drops by its `webhook-id`).
 */
export interface WebhookOutbox {
  /** Opens the outbox (taking whatever lock it needs) and resolves with every entry still waiting. */
  open(): Promise<OutboxEntry[]>;
  /** Adds `entry`, or replaces the entry with its key; durable when the promise resolves. */
  put(entry: OutboxEntry): Promise<void>;
  /** Removes the entry with `key` (nothing when there is none). */
  remove(key: string): Promise<void>;
  /** Writes what is buffered and releases files, sockets and locks. */
  close(): Promise<void>;
}

/** The key of a delivery of `messageId` to `endpoint`. */
export function outboxKey(endpoint: string, messageId: string): string {
  return `${endpoint}\n${messageId}`;
}
