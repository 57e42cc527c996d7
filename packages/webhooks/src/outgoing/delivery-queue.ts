// The deliveries waiting to be sent: each one's timer, the lanes that bound attempts per endpoint, what an attempt's
// outcome does (retry, disable, give up), the guarded dispatcher, and the outbox writes that follow them.

import { setOwn } from '@threatlib/core/integration';
import type { Agent } from 'undici';
import { createGuardedAgent } from '../network/guarded-agent.js';
import { type AttemptOutcome, attemptDelivery } from './delivery-attempt.js';
import {
  type DeliveryDetail,
  DeliveryLedger,
  deliveryRecord,
  deliveryResult,
  type EndpointCounters,
} from './delivery-ledger.js';
import type {
  DeliveryRecord,
  DeliveryResult,
  DeliveryStatus,
  EndpointDeliveryStats,
  OutgoingDeliveryStats,
} from './delivery-record.js';
import { type OutboxEntry, outboxKey, type WebhookOutbox } from './outbox/outbox.js';
import type { OutgoingEndpoint } from './outgoing-endpoint.js';
import type { ResolvedOutgoingOptions } from './outgoing-options.js';
import type { OutgoingRuntime } from './outgoing-runtime.js';
import { retryDelay } from './retry-delay.js';

/** One delivery the manager holds: its outbox entry, its timer, and who waits for its first attempt. */
interface Delivery {
  entry: OutboxEntry;
  timer: unknown;
  queued: boolean;
  first: ((result: DeliveryResult) => void) | undefined;
}

/** Attempts of one endpoint: the deliveries due, and how many are under way. */
interface Lane {
  due: Delivery[];
  running: number;
}

/** What the queue shares with the `OutgoingWebhooks` that owns it. */
interface DeliveryQueueHost {
  readonly options: ResolvedOutgoingOptions;
  readonly runtime: OutgoingRuntime;
  /** The endpoints registered, by name (the owner's map: endpoints added later are seen). */
  readonly endpoints: Map<string, OutgoingEndpoint>;
  /** The outbox in use (chosen when it is first opened). */
  outbox(): WebhookOutbox;
  /** Whether the owner is running (attempts start only then). */
  isRunning(): boolean;
  /** Whether the owner is stopping (attempts under way are cut short). */
  isStopping(): boolean;
}

/** The deliveries waiting and under way, their attempts, and what is remembered once they finished. */
export class DeliveryQueue {
  readonly #host: DeliveryQueueHost;
  readonly #ledger: DeliveryLedger;
  readonly #lanes = new Map<string, Lane>();
  /** Deliveries waiting, by outbox key. */
  readonly #pending = new Map<string, Delivery>();
  /** Outbox writes and attempts under way, awaited by `stop()`. */
  readonly #background = new Set<Promise<unknown>>();
  #agent: Agent | undefined;
  #lastOutboxWrite: Promise<void> | undefined;

  constructor(host: DeliveryQueueHost) {
    this.#host = host;
    this.#ledger = new DeliveryLedger(host.options.history);
  }

  /** Number of deliveries waiting. */
  get size(): number {
    return this.#pending.size;
  }

  /** The result of the delivery of `key` if it is waiting, or was delivered and is still in the history. */
  known(key: string): DeliveryResult | undefined {
    const waiting = this.#pending.get(key);
    if (waiting) return deliveryResult(waiting.entry, 'pending');
    return this.#ledger.delivered(key);
  }

  /** Writes one endpoint's delivery to the outbox, attempts it, and resolves with how the first attempt ended. */
  async send(
    endpoint: OutgoingEndpoint,
    messageId: string,
    event: string,
    body: string,
    now: number,
  ): Promise<DeliveryResult> {
    const entry: OutboxEntry = {
      key: outboxKey(endpoint.name, messageId),
      messageId,
      endpoint: endpoint.name,
      event,
      body,
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
    };
    if (endpoint.disabled) {
      return this.#finish(entry, 'failed', { error: 'the endpoint answered 410 Gone earlier and is disabled' });
    }
    if (this.#pending.has(entry.key)) return deliveryResult(entry, 'pending');
    try {
      await this.#host.outbox().put(entry);
    } catch (error) {
      return this.#finish(entry, 'failed', {
        error: `the outbox could not keep it: ${(error as Error)?.message ?? error}`,
      });
    }
    if (!this.#host.isRunning()) return deliveryResult(entry, 'pending');
    return new Promise<DeliveryResult>((resolve) => {
      const delivery = this.hold(entry);
      delivery.first = resolve;
    });
  }

  /** Keeps a waiting delivery and schedules its next attempt. */
  hold(entry: OutboxEntry): Delivery {
    const delivery: Delivery = { entry, timer: undefined, queued: false, first: undefined };
    this.#pending.set(entry.key, delivery);
    this.#schedule(delivery);
    return delivery;
  }

  /**
   * Stops attempting: timers cleared, due deliveries told they wait; attempts under way get `grace` ms before the
   * dispatcher is destroyed. Waiting deliveries stay in the outbox.
   */
  async halt(grace: number): Promise<void> {
    for (const delivery of this.#pending.values()) {
      if (delivery.timer !== undefined) this.#host.runtime.clock.clearTimeout(delivery.timer);
      delivery.timer = undefined;
    }
    for (const lane of this.#lanes.values()) {
      for (const delivery of lane.due.splice(0)) this.#settleFirst(delivery, 'pending');
    }
    // Past the grace, the dispatcher is destroyed: the requests still under way fail, and stay due.
    const graceTimer = setTimeout(() => void this.#agent?.destroy().catch(() => undefined), grace);
    try {
      while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    } finally {
      clearTimeout(graceTimer);
    }
    for (const delivery of this.#pending.values()) this.#settleFirst(delivery, 'pending');
    this.#pending.clear();
    this.#lanes.clear();
  }

  /** Closes the dispatcher, if one was made. */
  async releaseDispatcher(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    await agent?.close();
  }

  /** The deliveries waiting now, then the last finished ones, oldest first, narrowed by `filter`. */
  records(filter: { endpoint?: string; status?: DeliveryStatus }): DeliveryRecord[] {
    const finished = this.#ledger.records();
    const waiting = [...this.#pending.values()].map((delivery) => deliveryRecord(delivery.entry, 'pending'));
    return [...finished, ...waiting].filter(
      (record) =>
        (filter.endpoint === undefined || record.endpoint === filter.endpoint) &&
        (filter.status === undefined || record.status === filter.status),
    );
  }

  /** Counters of deliveries in total and per endpoint; `waitingForEndpoint` is counted by the owner. */
  stats(waitingForEndpoint: number): OutgoingDeliveryStats {
    const endpoints: Record<string, EndpointDeliveryStats> = {};
    const names = new Set([...this.#host.endpoints.keys(), ...this.#ledger.names()]);
    for (const name of names) {
      // Any name is a key of its own (an endpoint named "__proto__" assigned would vanish from the stats).
      setOwn(endpoints, name, {
        ...this.#counters(name),
        pending: [...this.#pending.values()].filter((delivery) => delivery.entry.endpoint === name).length,
        disabled: this.#host.endpoints.get(name)?.disabled ?? false,
      });
    }
    const sum = (field: 'delivered' | 'failed' | 'blocked' | 'retried' | 'attempts') =>
      Object.values(endpoints).reduce((total, counters) => total + counters[field], 0);
    return {
      delivered: sum('delivered'),
      failed: sum('failed'),
      blocked: sum('blocked'),
      retried: sum('retried'),
      attempts: sum('attempts'),
      pending: this.#pending.size,
      waitingForEndpoint,
      endpoints,
    };
  }

  #schedule(delivery: Delivery): void {
    const wait = delivery.entry.nextAttemptAt - this.#host.runtime.clock.now();
    if (wait <= 0) {
      this.#enqueue(delivery);
      return;
    }
    delivery.timer = this.#host.runtime.clock.setTimeout(() => {
      delivery.timer = undefined;
      this.#enqueue(delivery);
    }, wait);
  }

  #enqueue(delivery: Delivery): void {
    if (!this.#host.isRunning() || delivery.queued) return;
    const lane = this.#lane(delivery.entry.endpoint);
    delivery.queued = true;
    lane.due.push(delivery);
    this.#pump(delivery.entry.endpoint, lane);
  }

  #lane(endpoint: string): Lane {
    let lane = this.#lanes.get(endpoint);
    if (!lane) {
      lane = { due: [], running: 0 };
      this.#lanes.set(endpoint, lane);
    }
    return lane;
  }

  #pump(endpoint: string, lane: Lane): void {
    while (lane.running < this.#host.options.concurrency && lane.due.length > 0 && this.#host.isRunning()) {
      const delivery = lane.due.shift() as Delivery;
      delivery.queued = false;
      lane.running += 1;
      this.#track(this.#attempt(delivery, endpoint, lane));
    }
  }

  /** One attempt of `delivery`, then the next due delivery of its lane. */
  async #attempt(delivery: Delivery, name: string, lane: Lane): Promise<void> {
    try {
      const { entry } = delivery;
      const endpoint = this.#host.endpoints.get(entry.endpoint);
      if (!endpoint) return;
      if (endpoint.disabled) {
        this.#finish(entry, 'failed', { error: 'the endpoint answered 410 Gone and is disabled' }, delivery);
        return;
      }
      const outcome = await attemptDelivery({
        endpoint,
        messageId: entry.messageId,
        body: entry.body,
        nowMs: this.#host.runtime.clock.now(),
        dispatcher: this.#dispatcher(),
        timeoutMs: this.#host.options.timeoutMs,
        stopping: this.#host.isStopping,
      });
      if (outcome.kind === 'aborted') return;
      entry.attempts += 1;
      this.#counters(entry.endpoint).attempts += 1;
      this.#conclude(delivery, endpoint, outcome);
    } finally {
      lane.running -= 1;
      this.#pump(name, lane);
    }
  }

  #conclude(delivery: Delivery, endpoint: OutgoingEndpoint, outcome: Exclude<AttemptOutcome, { kind: 'aborted' }>) {
    const { entry } = delivery;
    const { logger } = this.#host.runtime;
    switch (outcome.kind) {
      case 'delivered':
        this.#finish(entry, 'delivered', { statusCode: outcome.statusCode }, delivery);
        return;
      case 'gone':
        endpoint.disabled = true;
        logger.warn(
          { endpoint: endpoint.name },
          `outgoing webhook "${endpoint.name}" answered 410 Gone: it is disabled and its waiting deliveries dropped`,
        );
        this.#finish(entry, 'failed', { statusCode: 410, error: 'the receiver answered 410 Gone' }, delivery);
        for (const other of [...this.#pending.values()]) {
          if (other.entry.endpoint === endpoint.name) {
            this.#finish(other.entry, 'failed', { error: 'the endpoint answered 410 Gone and is disabled' }, other);
          }
        }
        return;
      case 'blocked':
        this.#counters(entry.endpoint).blocked += 1;
        logger.warn({ endpoint: endpoint.name }, `outgoing webhook "${endpoint.name}": ${outcome.error}`);
        this.#finish(entry, 'failed', { error: outcome.error }, delivery);
        return;
      case 'unsendable':
        logger.warn(
          { endpoint: endpoint.name, messageId: JSON.stringify(entry.messageId.slice(0, 100)) },
          `outgoing webhook "${endpoint.name}": delivery failed for good: ${outcome.error}`,
        );
        this.#finish(entry, 'failed', { error: outcome.error }, delivery);
        return;
      case 'failed': {
        const wait = retryDelay({
          attempts: entry.attempts,
          schedule: this.#host.options.retrySchedule,
          jitter: this.#host.options.jitter,
          maxDelayMs: this.#host.options.maxDelayMs,
          retryAfterMs: outcome.retryAfterMs,
          random: this.#host.runtime.random ?? Math.random,
        });
        const detail = {
          error: outcome.error,
          ...(outcome.statusCode === undefined ? {} : { statusCode: outcome.statusCode }),
        };
        if (wait === undefined) {
          logger.warn(
            { endpoint: endpoint.name, attempts: entry.attempts },
            `outgoing webhook "${endpoint.name}": delivery ${entry.messageId} failed after ${entry.attempts} attempts: ${outcome.error}`,
          );
          this.#finish(entry, 'failed', detail, delivery);
          return;
        }
        this.#counters(entry.endpoint).retried += 1;
        entry.nextAttemptAt = this.#host.runtime.clock.now() + wait;
        entry.lastError = outcome.error;
        this.#settleFirst(delivery, 'pending', detail);
        // The attempt count survives a restart; if this write fails the delivery still waits, from its last count.
        this.#trackOutbox(this.#host.outbox().put(entry));
        if (this.#host.isRunning()) this.#schedule(delivery);
        return;
      }
    }
  }

  /** Ends a delivery: out of the outbox, into the history and the counters; the first attempt's waiter told. */
  #finish(
    entry: OutboxEntry,
    status: 'delivered' | 'failed',
    detail: DeliveryDetail,
    delivery?: Delivery,
  ): DeliveryResult {
    if (delivery) {
      if (delivery.timer !== undefined) this.#host.runtime.clock.clearTimeout(delivery.timer);
      delivery.timer = undefined;
      this.#pending.delete(entry.key);
      this.#settleFirst(delivery, status, detail);
      this.#trackOutbox(this.#host.outbox().remove(entry.key));
    }
    this.#ledger.keep(entry, status, detail, this.#host.runtime.clock);
    return deliveryResult(entry, status, detail);
  }

  #settleFirst(delivery: Delivery, status: DeliveryStatus, detail: DeliveryDetail = {}) {
    const first = delivery.first;
    delivery.first = undefined;
    first?.(deliveryResult(delivery.entry, status, detail));
  }

  #counters(endpoint: string): EndpointCounters {
    return this.#ledger.counters(endpoint);
  }

  #dispatcher(): Agent {
    this.#agent ??= createGuardedAgent({
      allowPrivateNetworks: this.#host.options.allowPrivateNetworks,
      ...(this.#host.runtime.resolveHost ? { resolve: this.#host.runtime.resolveHost } : {}),
      connections: this.#host.options.concurrency,
      connectTimeout: this.#host.options.timeoutMs,
      rejectUnauthorized: this.#host.options.validateCertificates,
    });
    return this.#agent;
  }

  /** Keeps an attempt until it settles, for `stop()` to await. */
  #track(work: Promise<unknown>): void {
    this.#background.add(work);
    work.then(
      () => this.#background.delete(work),
      (error: unknown) => {
        this.#background.delete(work);
        this.#host.runtime.logger.error({ err: error }, 'an outgoing delivery failed unexpectedly');
      },
    );
  }

  /**
   * Logs an outbox write's failure. Writes that do not gate an attempt are not awaited: the outbox's `close()` writes
   * what is left. The file outbox hands every line of a batch the same promise, which is followed once.
   */
  #trackOutbox(work: Promise<void>): void {
    if (work === this.#lastOutboxWrite) return;
    this.#lastOutboxWrite = work;
    work.catch((error: unknown) => this.#outboxFailed(error));
  }

  #outboxFailed(error: unknown): void {
    this.#host.runtime.logger.error(
      { err: error },
      `the webhook outbox could not be written: ${(error as Error)?.message}`,
    );
  }
}
