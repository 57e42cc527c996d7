import { resolve as resolvePath } from 'node:path';
import { type Alert, ConfigurationError, type Logger } from '@threatlib/core';
import { type Clock, confidenceProblem, setOwn } from '@threatlib/core/integration';
import type { Agent } from 'undici';
import { WebhookError } from '../errors/webhook-error.js';
import { DOCUMENTED_OUTGOING_EVENTS, HIGH_CONFIDENCE_THREAT_EVENT } from '../events/documented-events.js';
import { AddressPolicy } from '../network/address-policy.js';
import { createGuardedAgent, type HostResolver } from '../network/guarded-agent.js';
import { type AttemptOutcome, attemptDelivery } from './delivery-attempt.js';
import type {
  DeliveryRecord,
  DeliveryResult,
  DeliveryStatus,
  EndpointDeliveryStats,
  OutgoingDeliveryStats,
} from './delivery-record.js';
import { derivedMessageId, messageIdProblem, newMessageId } from './message-id.js';
import { FileOutbox } from './outbox/file-outbox.js';
import { type OutboxEntry, outboxKey, type WebhookOutbox } from './outbox/outbox.js';
import { makeEndpoint, type OutgoingEndpoint, type OutgoingWebhookDefinition } from './outgoing-endpoint.js';
import {
  isOutbox,
  type OutgoingOptions,
  OutgoingOptionsSchema,
  type ResolvedOutgoingOptions,
} from './outgoing-options.js';
import { retryDelay } from './retry-delay.js';

export type { DeliveryResult } from './delivery-record.js';
export type { OutgoingWebhookDefinition } from './outgoing-endpoint.js';
export { type OutgoingOptions, OutgoingOptionsSchema } from './outgoing-options.js';

/** An alert's indicator is sent as `high-confidence-threat` from this confidence on (0 to 100). */
export const DEFAULT_HIGH_CONFIDENCE = 80;
/** Most event names remembered as warned about (triggered while no endpoint lists them); past it, no more warnings. */
const MAX_WARNED_EVENTS = 1_000;

/** What the outgoing side gets from the manager. */
export interface OutgoingRuntime {
  logger: Logger;
  clock: Clock;
  /** Where the options sit in the caller's configuration, to prefix `ConfigurationError` paths. */
  optionsPath: string;
  /** Where outgoing definitions sit in the caller's configuration (default: beside the options, `outgoing`). */
  definitionsPath?: string;
  /** HTTPS required for endpoints (default true; the client's `security.enforceHttps` when run as an integration). */
  enforceHttps?: boolean;
  /** Resolves receivers' host names (default: the system resolver); every address it gives is checked. */
  resolveHost?: HostResolver;
  /** A number in [0, 1) for the retries' jitter (default `Math.random`). */
  random?: () => number;
  /**
   * The outbox to use instead of the file one, asked once, when the outbox is first opened (by `start()` or the first
   * trigger); undefined keeps the file outbox. Give it only when the options name no outbox.
   */
  defaultOutbox?: () => WebhookOutbox | undefined;
}

/** Options of one {@link OutgoingWebhooks.trigger}. */
export interface TriggerOptions {
  /**
   * The `webhook-id` to send (default a new random one); a message made again from the same facts reuses its id. 1 to
   * 256 printable ASCII characters without spaces: it is sent as a header.
   */
  messageId?: string;
}

/** One delivery the manager holds: its outbox entry, its timer, and who waits for its first attempt. */
interface Delivery {
  entry: OutboxEntry;
  timer: unknown;
  queued: boolean;
  first: ((result: DeliveryResult) => void) | undefined;
}

/** A finished delivery as the history keeps it. */
interface Finished {
  entry: OutboxEntry;
  status: 'delivered' | 'failed';
  detail: { statusCode?: number; error?: string };
  finishedAt: number;
}

/** Attempts of one endpoint: the deliveries due, and how many are under way. */
interface Lane {
  due: Delivery[];
  running: number;
}

type State = 'idle' | 'opening' | 'running' | 'stopping';

/**
 * The outgoing side of a `WebhookManager`: every endpoint subscribed to an event gets a POST of the Standard Webhooks
 * payload `{type, timestamp, data}`, signed when it has a secret. Each delivery is written to the outbox before its
 * first attempt and removed once it succeeded or finally failed; failed attempts are retried on `retrySchedule` with
 * jitter (never sooner than a `Retry-After`); a 410 disables the endpoint; every connection goes through the SSRF
 * guard. Pending deliveries resume when the outbox is opened again (after a restart, with the same `webhook-id`).
 */
export class OutgoingWebhooks {
  readonly options: ResolvedOutgoingOptions;
  readonly #runtime: OutgoingRuntime;
  readonly #addresses: AddressPolicy;
  #outbox: WebhookOutbox;
  /** Whether `runtime.defaultOutbox` was asked (once, before the outbox is first opened). */
  #outboxChosen = false;
  readonly #endpoints = new Map<string, OutgoingEndpoint>();
  readonly #lanes = new Map<string, Lane>();
  /** Deliveries waiting, by outbox key. */
  readonly #pending = new Map<string, Delivery>();
  /** Deliveries from the outbox whose endpoint is not registered, by endpoint name. */
  readonly #orphans = new Map<string, OutboxEntry[]>();
  /** The last finished deliveries, oldest first; made into records only when `deliveries()` asks. */
  readonly #history: Finished[] = [];
  readonly #stats = new Map<string, Omit<EndpointDeliveryStats, 'pending' | 'disabled'>>();
  /** Outbox writes and attempts under way, awaited by `stop()`. */
  readonly #background = new Set<Promise<unknown>>();
  #agent: Agent | undefined;
  #state: State = 'idle';
  #opening: Promise<void> | undefined;
  #lastOutboxWrite: Promise<void> | undefined;
  /** Event names triggered while no endpoint listed them, already warned about. */
  readonly #warnedEvents = new Set<string>();
  readonly #isStopping = (): boolean => this.#state === 'stopping';

  /** @throws {ConfigurationError} `Configuration invalid: <optionsPath>.<option>: ...` naming each invalid option. */
  constructor(options: OutgoingOptions, runtime: OutgoingRuntime) {
    const parsed = OutgoingOptionsSchema.safeParse(options ?? {});
    if (!parsed.success) {
      throw new ConfigurationError(
        parsed.error.issues.map((issue) => ({
          path: [runtime.optionsPath, ...issue.path.map(String)].join('.'),
          message: issue.message,
        })),
      );
    }
    this.options = parsed.data;
    this.#runtime = runtime;
    this.#addresses = new AddressPolicy(this.options.allowPrivateNetworks);
    const outbox = this.options.outbox;
    this.#outbox = 'directory' in outbox ? new FileOutbox(resolvePath(outbox.directory)) : outbox;
  }

  /** Number of endpoints registered. */
  get size(): number {
    return this.#endpoints.size;
  }

  /**
   * Registers an endpoint. Deliveries to it that waited in the outbox (from before a restart) resume.
   *
   * @throws {ConfigurationError} naming each problem of the definition (a secret is never quoted), a name taken, or a
   *   literal address the network policy refuses.
   * @throws {InsecureEndpointError} when the URL is not https and HTTPS is enforced.
   */
  add(definition: OutgoingWebhookDefinition): void {
    const name = (definition as { name?: unknown } | null)?.name;
    const path = `${this.#definitionsPath}[${typeof name === 'string' ? JSON.stringify(name) : '?'}]`;
    const endpoint = makeEndpoint(definition, path, {
      enforceHttps: this.#runtime.enforceHttps ?? true,
      addresses: this.#addresses,
    });
    if (this.#endpoints.has(endpoint.name)) {
      throw new ConfigurationError([
        { path: `${path}.name`, message: 'an outgoing webhook of this name is registered' },
      ]);
    }
    this.#endpoints.set(endpoint.name, endpoint);
    const waiting = this.#orphans.get(endpoint.name);
    if (waiting && this.#state === 'running') {
      this.#orphans.delete(endpoint.name);
      for (const entry of waiting) this.#hold(entry);
    }
  }

  /**
   * Sends `data` as `eventName` to every endpoint listing that event: the payload is written to the outbox for each,
   * then POSTed. Resolves once each endpoint's first attempt has ended, with one result per endpoint (none listing
   * the event: an empty array). Opens the outbox first if `start()` has not.
   *
   * An event that no endpoint lists and threatlib does not document is logged once per name, as a warning (a
   * misspelt event would otherwise send nothing without a word).
   *
   * @throws {WebhookError} when the event name, the message id (not a header value) or the data cannot be sent (not
   *   JSON; for `high-confidence-threat`, a `confidence` that is not 0..100, such as a 0..1 score), the outbox is full,
   *   or the manager is stopping. Nothing is kept when it throws.
   */
  async trigger(eventName: string, data: unknown, options: TriggerOptions = {}): Promise<DeliveryResult[]> {
    if (typeof eventName !== 'string' || eventName.length === 0 || eventName.length > 200) {
      throw new WebhookError('deliver', 'expected an event name of 1 to 200 characters');
    }
    const idProblem = options.messageId === undefined ? undefined : messageIdProblem(options.messageId);
    if (idProblem !== undefined) {
      throw new WebhookError('deliver', `the messageId of "${eventName}" ${idProblem}; nothing was sent`);
    }
    const dataIssue = documentedDataProblem(eventName, data);
    if (dataIssue !== undefined) throw new WebhookError('deliver', `the data of "${eventName}": ${dataIssue}`);
    const targets = [...this.#endpoints.values()].filter((endpoint) => endpoint.events.has(eventName));
    if (targets.length === 0) {
      this.#warnUnlisted(eventName);
      return [];
    }
    const now = this.#runtime.clock.now();
    let body: string;
    try {
      body = JSON.stringify({ type: eventName, timestamp: new Date(now).toISOString(), data: data ?? null });
    } catch (error) {
      throw new WebhookError('deliver', `the data of "${eventName}" is not JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (this.#state !== 'running') await this.#ready();
    if (this.#pending.size + targets.length > this.options.maxPending) {
      throw new WebhookError(
        'deliver',
        `${this.#pending.size} deliveries are waiting (delivery.maxPending is ${this.options.maxPending}); "${eventName}" was not sent`,
        { isRetryable: true },
      );
    }
    const messageId = options.messageId ?? newMessageId();
    return Promise.all(targets.map((endpoint) => this.#send(endpoint, messageId, eventName, body, now)));
  }

  /**
   * What an alert the client raised sends out: each of its indicators whose confidence reaches `minConfidence`
   * (default 80) as `high-confidence-threat` `{indicator, confidence, sources}`, with a `webhook-id` made from the
   * alert's id and the indicator (an alert delivered again sends the same ids).
   */
  async sendAlert(alert: Alert, options: { minConfidence?: number } = {}): Promise<DeliveryResult[]> {
    const threshold = options.minConfidence ?? DEFAULT_HIGH_CONFIDENCE;
    const thresholdIssue = confidenceProblem(threshold, 'minConfidence');
    if (thresholdIssue !== undefined) throw new WebhookError('deliver', thresholdIssue);
    const results: DeliveryResult[] = [];
    for (const indicator of alert.indicators ?? []) {
      if (typeof indicator.confidence !== 'number' || indicator.confidence < threshold) continue;
      const data = {
        indicator: indicator.value,
        confidence: indicator.confidence,
        sources: indicator.sources ?? (indicator.source ? [indicator.source] : []),
      };
      const messageId = derivedMessageId(HIGH_CONFIDENCE_THREAT_EVENT, alert.id, indicator.type, indicator.value);
      results.push(...(await this.#triggerOnce(HIGH_CONFIDENCE_THREAT_EVENT, data, messageId)));
    }
    return results;
  }

  /**
   * Opens the outbox and resumes the deliveries waiting in it. A manager with no endpoint and no outbox directory yet
   * (one that only receives) creates nothing: its outbox opens on the first trigger.
   */
  async start(): Promise<void> {
    this.#chooseOutbox();
    if (this.#endpoints.size === 0 && this.#outbox instanceof FileOutbox && !(await this.#outbox.exists())) return;
    await this.#ready();
  }

  /**
   * Stops sending: attempts under way get a moment (up to `timeoutMs`, at most 5 s) to finish, then are cut short;
   * waiting deliveries stay in the outbox for the next start. Releases every socket, timer and file.
   */
  async stop(): Promise<void> {
    if (this.#state === 'idle' || this.#state === 'stopping') return;
    await this.#opening?.catch(() => undefined);
    this.#state = 'stopping';
    for (const delivery of this.#pending.values()) {
      if (delivery.timer !== undefined) this.#runtime.clock.clearTimeout(delivery.timer);
      delivery.timer = undefined;
    }
    for (const lane of this.#lanes.values()) {
      for (const delivery of lane.due.splice(0)) this.#settleFirst(delivery, 'pending');
    }
    const grace = Math.min(this.options.timeoutMs, 5_000);
    // Past the grace, the dispatcher is destroyed: the requests still under way fail, and stay due.
    const graceTimer = setTimeout(() => void this.#agent?.destroy().catch(() => undefined), grace);
    try {
      while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    } finally {
      clearTimeout(graceTimer);
    }
    for (const delivery of this.#pending.values()) this.#settleFirst(delivery, 'pending');
    this.#pending.clear();
    this.#orphans.clear();
    this.#lanes.clear();
    const agent = this.#agent;
    this.#agent = undefined;
    await Promise.allSettled([agent?.close(), this.#outbox.close()]);
    this.#opening = undefined;
    this.#state = 'idle';
  }

  /**
   * The deliveries waiting now, then the last finished ones (up to `history`), oldest first; `filter` narrows them
   * by endpoint or status.
   */
  deliveries(filter: { endpoint?: string; status?: DeliveryStatus } = {}): DeliveryRecord[] {
    const finished = this.#history.map(({ entry, status, detail, finishedAt }) => ({
      ...this.#record(entry, status, detail),
      finishedAt: new Date(finishedAt).toISOString(),
    }));
    const waiting = [...this.#pending.values()].map((delivery) => this.#record(delivery.entry, 'pending'));
    return [...finished, ...waiting].filter(
      (record) =>
        (filter.endpoint === undefined || record.endpoint === filter.endpoint) &&
        (filter.status === undefined || record.status === filter.status),
    );
  }

  /** Counters of deliveries since the manager was made, in total and per endpoint. */
  stats(): OutgoingDeliveryStats {
    const endpoints: Record<string, EndpointDeliveryStats> = {};
    const names = new Set([...this.#endpoints.keys(), ...this.#stats.keys()]);
    for (const name of names) {
      // Any name is a key of its own (an endpoint named "__proto__" assigned would vanish from the stats).
      setOwn(endpoints, name, {
        ...this.#counters(name),
        pending: [...this.#pending.values()].filter((delivery) => delivery.entry.endpoint === name).length,
        disabled: this.#endpoints.get(name)?.disabled ?? false,
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
      waitingForEndpoint: [...this.#orphans.values()].reduce((total, entries) => total + entries.length, 0),
      endpoints,
    };
  }

  /** Warns, once per event name, that `eventName` was triggered while no endpoint lists it (unless it is documented). */
  #warnUnlisted(eventName: string): void {
    if (DOCUMENTED_OUTGOING_EVENTS.has(eventName) || this.#warnedEvents.has(eventName)) return;
    if (this.#warnedEvents.size >= MAX_WARNED_EVENTS) return;
    this.#warnedEvents.add(eventName);
    const listed = [...new Set([...this.#endpoints.values()].flatMap((endpoint) => [...endpoint.events]))];
    const shown = listed.length > 20 ? `${listed.slice(0, 20).join(', ')}, …` : listed.join(', ');
    this.#runtime.logger.warn(
      { category: 'integration', event: eventName },
      `trigger(${JSON.stringify(eventName.length > 100 ? `${eventName.slice(0, 100)}…` : eventName)}) sent nothing: no outgoing webhook lists this event (${listed.length === 0 ? 'none is registered' : `the events listed: ${shown}`}); said once per event name`,
    );
  }

  get #definitionsPath(): string {
    return this.#runtime.definitionsPath ?? this.#runtime.optionsPath.replace(/\.delivery$/, '.outgoing');
  }

  /** Opens the outbox once (on `start()` or the first trigger) and holds every delivery waiting in it. */
  #ready(): Promise<void> {
    if (this.#state === 'stopping') {
      return Promise.reject(new WebhookError('deliver', 'the webhook manager is stopping; nothing more is sent'));
    }
    if (!this.#opening) {
      try {
        this.#chooseOutbox();
      } catch (error) {
        return Promise.reject(error);
      }
      this.#state = 'opening';
      this.#opening = this.#outbox.open().then(
        (entries) => {
          this.#state = 'running';
          for (const entry of entries) {
            if (this.#endpoints.has(entry.endpoint)) this.#hold(entry);
            else this.#orphans.set(entry.endpoint, [...(this.#orphans.get(entry.endpoint) ?? []), entry]);
          }
          for (const [endpoint, waiting] of this.#orphans) {
            this.#runtime.logger.warn(
              { endpoint, deliveries: waiting.length },
              `${waiting.length} outgoing deliveries wait in the outbox for an endpoint named "${endpoint}", which is not registered`,
            );
          }
        },
        (error: unknown) => {
          this.#opening = undefined;
          this.#state = 'idle';
          throw new WebhookError('start', `the outbox could not be opened: ${(error as Error)?.message ?? error}`, {
            cause: error,
          });
        },
      );
    }
    return this.#opening;
  }

  /**
   * Takes the runtime's `defaultOutbox` in place of the file outbox, once, before the outbox is first opened.
   *
   * @throws {WebhookError} when what it gives is not an outbox.
   */
  #chooseOutbox(): void {
    if (this.#outboxChosen) return;
    this.#outboxChosen = true;
    const chosen = this.#runtime.defaultOutbox?.();
    if (chosen === undefined) return;
    if (!isOutbox(chosen)) {
      throw new WebhookError('start', 'the outbox offered instead of the file one lacks open, put, remove or close', {
        isRetryable: false,
      });
    }
    this.#outbox = chosen;
  }

  /** Triggers `eventName` unless a delivery of `messageId` is waiting or was delivered (then reports that one). */
  async #triggerOnce(eventName: string, data: unknown, messageId: string): Promise<DeliveryResult[]> {
    const targets = [...this.#endpoints.values()].filter((endpoint) => endpoint.events.has(eventName));
    const known = targets.map((endpoint) => {
      const key = outboxKey(endpoint.name, messageId);
      const waiting = this.#pending.get(key);
      if (waiting) return this.#result(waiting.entry, 'pending');
      const done = this.#history.find((finished) => finished.entry.key === key && finished.status === 'delivered');
      return done && this.#result(done.entry, done.status, done.detail);
    });
    if (known.every((result) => result !== undefined)) return known as DeliveryResult[];
    return this.trigger(eventName, data, { messageId });
  }

  /** Writes one endpoint's delivery to the outbox, attempts it, and resolves with how the first attempt ended. */
  async #send(
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
    if (this.#pending.has(entry.key)) return this.#result(entry, 'pending');
    try {
      await this.#outbox.put(entry);
    } catch (error) {
      return this.#finish(entry, 'failed', {
        error: `the outbox could not keep it: ${(error as Error)?.message ?? error}`,
      });
    }
    if (this.#state !== 'running') return this.#result(entry, 'pending');
    return new Promise<DeliveryResult>((resolve) => {
      const delivery = this.#hold(entry);
      delivery.first = resolve;
    });
  }

  /** Keeps a waiting delivery and schedules its next attempt. */
  #hold(entry: OutboxEntry): Delivery {
    const delivery: Delivery = { entry, timer: undefined, queued: false, first: undefined };
    this.#pending.set(entry.key, delivery);
    this.#schedule(delivery);
    return delivery;
  }

  #schedule(delivery: Delivery): void {
    const wait = delivery.entry.nextAttemptAt - this.#runtime.clock.now();
    if (wait <= 0) {
      this.#enqueue(delivery);
      return;
    }
    delivery.timer = this.#runtime.clock.setTimeout(() => {
      delivery.timer = undefined;
      this.#enqueue(delivery);
    }, wait);
  }

  #enqueue(delivery: Delivery): void {
    if (this.#state !== 'running' || delivery.queued) return;
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
    while (lane.running < this.options.concurrency && lane.due.length > 0 && this.#state === 'running') {
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
      const endpoint = this.#endpoints.get(entry.endpoint);
      if (!endpoint) return;
      if (endpoint.disabled) {
        this.#finish(entry, 'failed', { error: 'the endpoint answered 410 Gone and is disabled' }, delivery);
        return;
      }
      const outcome = await attemptDelivery({
        endpoint,
        messageId: entry.messageId,
        body: entry.body,
        nowMs: this.#runtime.clock.now(),
        dispatcher: this.#dispatcher(),
        timeoutMs: this.options.timeoutMs,
        stopping: this.#isStopping,
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
    switch (outcome.kind) {
      case 'delivered':
        this.#finish(entry, 'delivered', { statusCode: outcome.statusCode }, delivery);
        return;
      case 'gone':
        endpoint.disabled = true;
        this.#runtime.logger.warn(
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
        this.#runtime.logger.warn({ endpoint: endpoint.name }, `outgoing webhook "${endpoint.name}": ${outcome.error}`);
        this.#finish(entry, 'failed', { error: outcome.error }, delivery);
        return;
      case 'unsendable':
        this.#runtime.logger.warn(
          { endpoint: endpoint.name, messageId: JSON.stringify(entry.messageId.slice(0, 100)) },
          `outgoing webhook "${endpoint.name}": delivery failed for good: ${outcome.error}`,
        );
        this.#finish(entry, 'failed', { error: outcome.error }, delivery);
        return;
      case 'failed': {
        const wait = retryDelay({
          attempts: entry.attempts,
          schedule: this.options.retrySchedule,
          jitter: this.options.jitter,
          maxDelayMs: this.options.maxDelayMs,
          retryAfterMs: outcome.retryAfterMs,
          random: this.#runtime.random ?? Math.random,
        });
        const detail = {
          error: outcome.error,
          ...(outcome.statusCode === undefined ? {} : { statusCode: outcome.statusCode }),
        };
        if (wait === undefined) {
          this.#runtime.logger.warn(
            { endpoint: endpoint.name, attempts: entry.attempts },
            `outgoing webhook "${endpoint.name}": delivery ${entry.messageId} failed after ${entry.attempts} attempts: ${outcome.error}`,
          );
          this.#finish(entry, 'failed', detail, delivery);
          return;
        }
        this.#counters(entry.endpoint).retried += 1;
        entry.nextAttemptAt = this.#runtime.clock.now() + wait;
        entry.lastError = outcome.error;
        this.#settleFirst(delivery, 'pending', detail);
        // The attempt count survives a restart; if this write fails the delivery still waits, from its last count.
        this.#trackOutbox(this.#outbox.put(entry));
        if (this.#state === 'running') this.#schedule(delivery);
        return;
      }
    }
  }

  /** Ends a delivery: out of the outbox, into the history and the counters; the first attempt's waiter told. */
  #finish(
    entry: OutboxEntry,
    status: 'delivered' | 'failed',
    detail: { statusCode?: number; error?: string },
    delivery?: Delivery,
  ): DeliveryResult {
    if (delivery) {
      if (delivery.timer !== undefined) this.#runtime.clock.clearTimeout(delivery.timer);
      delivery.timer = undefined;
      this.#pending.delete(entry.key);
      this.#settleFirst(delivery, status, detail);
      this.#trackOutbox(this.#outbox.remove(entry.key));
    }
    const counters = this.#counters(entry.endpoint);
    if (status === 'delivered') counters.delivered += 1;
    else counters.failed += 1;
    if (this.options.history > 0) {
      this.#history.push({ entry, status, detail, finishedAt: this.#runtime.clock.now() });
      if (this.#history.length > this.options.history) this.#history.shift();
    }
    return this.#result(entry, status, detail);
  }

  #settleFirst(delivery: Delivery, status: DeliveryStatus, detail: { statusCode?: number; error?: string } = {}) {
    const first = delivery.first;
    delivery.first = undefined;
    first?.(this.#result(delivery.entry, status, detail));
  }

  #result(
    entry: OutboxEntry,
    status: DeliveryStatus,
    detail: { statusCode?: number; error?: string } = {},
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

  #record(entry: OutboxEntry, status: DeliveryStatus, detail: { statusCode?: number; error?: string } = {}) {
    return {
      ...this.#result(entry, status, detail),
      event: entry.event,
      createdAt: new Date(entry.createdAt).toISOString(),
    };
  }

  #counters(endpoint: string): Omit<EndpointDeliveryStats, 'pending' | 'disabled'> {
    let counters = this.#stats.get(endpoint);
    if (!counters) {
      counters = { delivered: 0, failed: 0, blocked: 0, retried: 0, attempts: 0 };
      this.#stats.set(endpoint, counters);
    }
    return counters;
  }

  #dispatcher(): Agent {
    this.#agent ??= createGuardedAgent({
      allowPrivateNetworks: this.options.allowPrivateNetworks,
      ...(this.#runtime.resolveHost ? { resolve: this.#runtime.resolveHost } : {}),
      connections: this.options.concurrency,
      connectTimeout: this.options.timeoutMs,
      rejectUnauthorized: this.options.validateCertificates,
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
        this.#runtime.logger.error({ err: error }, 'an outgoing delivery failed unexpectedly');
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
    this.#runtime.logger.error({ err: error }, `the webhook outbox could not be written: ${(error as Error)?.message}`);
  }
}

/**
 * What is wrong with the data of a documented event, or undefined: `high-confidence-threat` carries `{indicator,
 * confidence, sources}`, its `confidence` on the 0..100 scale (a receiver reading 0.9 as 0.9 % would drop the threat).
 */
function documentedDataProblem(eventName: string, data: unknown): string | undefined {
  if (eventName !== HIGH_CONFIDENCE_THREAT_EVENT || typeof data !== 'object' || data === null) return undefined;
  const { confidence } = data as { confidence?: unknown };
  return confidence === undefined ? undefined : confidenceProblem(confidence);
}
