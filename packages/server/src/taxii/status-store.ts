import { randomUUID } from 'node:crypto';

/** One object's line in a status resource (TAXII 2.1 section 4.3.1, "status details"). */
export interface StatusDetails {
  id: string;
  version: string;
  message?: string;
}

/** A TAXII 2.1 status resource: what became of the objects of one POST. */
export interface StatusResource {
  id: string;
  status: 'complete' | 'pending';
  request_timestamp: string;
  total_count: number;
  success_count: number;
  successes?: StatusDetails[];
  failure_count: number;
  failures?: StatusDetails[];
  pending_count: number;
  pendings?: StatusDetails[];
}

/**
 * The status resources of the POSTs made to an API root, for `GET <api root>/status/<id>/`: the newest `max` of
 * them, each kept `retentionMs`. In memory: another instance behind a load balancer does not know them.
 */
export class StatusStore {
  readonly #statuses = new Map<string, { resource: StatusResource; at: number }>();
  readonly #max: number;
  readonly #retentionMs: number;
  readonly #now: () => number;

  constructor(options: { max: number; retentionMs: number; now: () => number }) {
    this.#max = options.max;
    this.#retentionMs = options.retentionMs;
    this.#now = options.now;
  }

  /** Records the outcome of a POST made at `requestedAt` (epoch ms); every object was handled, so it is complete. */
  record(requestedAt: number, successes: StatusDetails[], failures: StatusDetails[]): StatusResource {
    const resource: StatusResource = {
      id: randomUUID(),
      status: 'complete',
      request_timestamp: new Date(requestedAt).toISOString(),
      total_count: successes.length + failures.length,
      success_count: successes.length,
      ...(successes.length > 0 ? { successes } : {}),
      failure_count: failures.length,
      ...(failures.length > 0 ? { failures } : {}),
      pending_count: 0,
    };
    this.#statuses.set(resource.id, { resource, at: this.#now() });
    while (this.#statuses.size > this.#max) {
      const oldest = this.#statuses.keys().next().value as string;
      this.#statuses.delete(oldest);
    }
    return resource;
  }

  /** The status resource `id`, unless it was never made, or dropped (too old, or too many since). */
  get(id: string): StatusResource | undefined {
    const held = this.#statuses.get(id);
    if (held === undefined) return undefined;
    if (this.#now() - held.at > this.#retentionMs) {
      this.#statuses.delete(id);
      return undefined;
    }
    return held.resource;
  }
}
