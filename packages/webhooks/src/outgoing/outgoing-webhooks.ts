// The outgoing side of a `WebhookManager`: its endpoints, its lifecycle (the outbox opened, resumed, closed), and
// what a trigger checks before its deliveries are queued.
import { resolve as resolvePath } from 'node:path';
import { type Alert, ConfigurationError } from '@threatlib/core';
import { confidenceProblem } from '@threatlib/core/integration';
import { WebhookError } from '../errors/webhook-error.js';
import { DOCUMENTED_OUTGOING_EVENTS, HIGH_CONFIDENCE_THREAT_EVENT } from '../events/documented-events.js';
import { AddressPolicy } from '../network/address-policy.js';
import { DeliveryQueue } from './delivery-queue.js';
import type { DeliveryRecord, DeliveryResult, DeliveryStatus, OutgoingDeliveryStats } from './delivery-record.js';
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
import { DEFAULT_HIGH_CONFIDENCE, type OutgoingRuntime, type TriggerOptions } from './outgoing-runtime.js';

export type { DeliveryResult } from './delivery-record.js';
export type { OutgoingWebhookDefinition } from './outgoing-endpoint.js';
export { type OutgoingOptions, OutgoingOptionsSchema } from './outgoing-options.js';
export { DEFAULT_HIGH_CONFIDENCE, type OutgoingRuntime, type TriggerOptions } from './outgoing-runtime.js';

/** Most event names remembered as warned about (triggered while no endpoint lists them); past it, no more warnings. */
const MAX_WARNED_EVENTS = 1_000;

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
  /** Deliveries from the outbox whose endpoint is not registered, by endpoint name. */
  readonly #orphans = new Map<string, OutboxEntry[]>();
  readonly #queue: DeliveryQueue;
  #state: State = 'idle';
  #opening: Promise<void> | undefined;
  /** Event names triggered while no endpoint listed them, already warned about. */
  readonly #warnedEvents = new Set<string>();

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
    this.#queue = new DeliveryQueue({
      options: this.options,
      runtime,
      endpoints: this.#endpoints,
      outbox: () => this.#outbox,
      isRunning: () => this.#state === 'running',
      isStopping: () => this.#state === 'stopping',
    });
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
      for (const entry of waiting) this.#queue.hold(entry);
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
    if (this.#queue.size + targets.length > this.options.maxPending) {
      throw new WebhookError(
        'deliver',
        `${this.#queue.size} deliveries are waiting (delivery.maxPending is ${this.options.maxPending}); "${eventName}" was not sent`,
        { isRetryable: true },
      );
    }
    const messageId = options.messageId ?? newMessageId();
    return Promise.all(targets.map((endpoint) => this.#queue.send(endpoint, messageId, eventName, body, now)));
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
    await this.#queue.halt(Math.min(this.options.timeoutMs, 5_000));
    this.#orphans.clear();
    await Promise.allSettled([this.#queue.releaseDispatcher(), this.#outbox.close()]);
    this.#opening = undefined;
    this.#state = 'idle';
  }

  /**
   * The deliveries waiting now, then the last finished ones (up to `history`), oldest first; `filter` narrows them
   * by endpoint or status.
   */
  deliveries(filter: { endpoint?: string; status?: DeliveryStatus } = {}): DeliveryRecord[] {
    return this.#queue.records(filter);
  }

  /** Counters of deliveries since the manager was made, in total and per endpoint. */
  stats(): OutgoingDeliveryStats {
    return this.#queue.stats([...this.#orphans.values()].reduce((total, entries) => total + entries.length, 0));
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
            if (this.#endpoints.has(entry.endpoint)) this.#queue.hold(entry);
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
    const known = targets.map((endpoint) => this.#queue.known(outboxKey(endpoint.name, messageId)));
    if (known.every((result) => result !== undefined)) return known as DeliveryResult[];
    return this.trigger(eventName, data, { messageId });
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
