/** Where a delivery stands: waiting (its next attempt due or under way), or finished either way. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** The outcome of one endpoint's delivery of a triggered event, as `trigger` resolves it. */
export interface DeliveryResult {
  /** The endpoint's name. */
  endpoint: string;
  /** The `webhook-id` sent (the same for every endpoint of one trigger, and every attempt). */
  messageId: string;
  /**
   * `delivered`: the first attempt got a 2xx. `pending`: it did not, and the delivery waits in the outbox for its next
   * attempt (`nextAttemptAt`). `failed`: it will not be delivered (the address is refused, the endpoint answered 410
   * or is disabled, the outbox could not keep it), `error` says why.
   */
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** The status code of the last answer, if there was one. */
  statusCode?: number;
  /** Why the last attempt failed (never a secret). */
  error?: string;
  /** When the next attempt is due (ISO 8601), for a pending delivery. */
  nextAttemptAt?: string;
}

/** A delivery as `deliveries()` lists it: a waiting one, or one of the last finished. */
export interface DeliveryRecord extends DeliveryResult {
  /** The event name. */
  event: string;
  /** When it was triggered (ISO 8601). */
  createdAt: string;
  /** When it finished (ISO 8601), for a finished one. */
  finishedAt?: string;
}

/** Counters of one endpoint's deliveries since the manager was made. */
export interface EndpointDeliveryStats {
  /** Deliveries that got a 2xx. */
  delivered: number;
  /** Deliveries that finally failed (their schedule spent, refused by the network policy, or 410). */
  failed: number;
  /** Of those, refused by the network policy before any byte was sent. */
  blocked: number;
  /** Attempts that failed and were scheduled again. */
  retried: number;
  /** Attempts made. */
  attempts: number;
  /** Deliveries waiting now. */
  pending: number;
  /** Whether the endpoint answered 410 Gone and gets nothing more. */
  disabled: boolean;
}

/** The outgoing side's counters: totals, and per endpoint. */
export interface OutgoingDeliveryStats {
  delivered: number;
  failed: number;
  blocked: number;
  retried: number;
  attempts: number;
  pending: number;
  /** Deliveries in the outbox whose endpoint is not registered (they wait for `addOutgoing` of that name). */
  waitingForEndpoint: number;
  endpoints: Record<string, EndpointDeliveryStats>;
}
