import rateLimit from '@fastify/rate-limit';
import { type Alert, type Logger, silentLogger } from '@threatlib/core';
import {
  type Clock,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
  redactedView,
  systemClock,
} from '@threatlib/core/integration';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { IncomingEventMap, OutgoingEventMap, UndocumentedEvent } from '../events/documented-events.js';
import { type IncomingHandler, type IncomingStats, IncomingWebhooks } from '../incoming/incoming-webhooks.js';
import { WebhookServer } from '../incoming/webhook-server.js';
import type { HostResolver } from '../network/guarded-agent.js';
import type { DeliveryRecord, DeliveryStatus, OutgoingDeliveryStats } from '../outgoing/delivery-record.js';
import type { WebhookOutbox } from '../outgoing/outbox/outbox.js';
import {
  type DeliveryResult,
  type OutgoingWebhookDefinition,
  OutgoingWebhooks,
  type TriggerOptions,
} from '../outgoing/outgoing-webhooks.js';
import {
  parseManagerOptions,
  type ResolvedWebhookManagerOptions,
  type WebhookManagerOptions,
} from './manager-options.js';

/** What a {@link WebhookManager} gets besides its options. */
export interface WebhookManagerRuntime {
  /** Where log lines go (a handler's failure, a refused signature's reason); default none. Never gets a secret. */
  logger?: Logger;
  /** Time for timestamp tolerance, replay windows and retries (tests pass a `ManualClock`). */
  clock?: Clock;
  /** Where the options sit in the caller's configuration, for `ConfigurationError` paths (default `webhooks`). */
  optionsPath?: string;
  /** HTTPS required for outgoing endpoints (the client's `security.enforceHttps` when run as an integration). */
  enforceHttps?: boolean;
  /** Resolves receivers' host names for outgoing deliveries (default: the system resolver); every address is checked. */
  resolveHost?: HostResolver;
  /** A number in [0, 1) for the jitter of outgoing retries (default `Math.random`). */
  random?: () => number;
  /**
   * When `delivery.outbox` is not given: the outbox to use instead of the file one, asked once when the outbox is
   * first opened (undefined keeps the file outbox). The integration offers the storage integration's this way.
   */
  defaultOutbox?: () => WebhookOutbox | undefined;
}

/**
 * Receives signed webhooks and sends them: incoming requests are verified (Standard Webhooks, or GitHub's
 * `X-Hub-Signature-256`), deduplicated by message id and handed to the handler of their event; outgoing events go
 * to every endpoint subscribed to them.
 *
 * @example
 * ```ts
 * const webhooks = new WebhookManager({
 *   server: { port: 3001, path: '/webhooks' },
 *   authentication: { type: 'hmac', secret: process.env.WEBHOOK_SECRET! },
 * });
 * webhooks.on('threat-update', async (data) => {
 *   const correlation = await client.correlate(data.indicator);
 *   if (correlation.confidence > 80) await client.alerts.add({ title: 'Threat update', indicator: data.indicator, correlation });
 * });
 * await webhooks.start(); // POST http://127.0.0.1:3001/webhooks (event in the payload's type) or /webhooks/threat-update
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: webhooks.<option>: ...` naming each invalid option.
 */
export class WebhookManager {
  readonly #options: ResolvedWebhookManagerOptions;
  #shownOptions: ResolvedWebhookManagerOptions | undefined;
  readonly #incoming: IncomingWebhooks;
  readonly #outgoing: OutgoingWebhooks;
  readonly #server: WebhookServer | undefined;

  constructor(options: WebhookManagerOptions, runtime: WebhookManagerRuntime = {}) {
    const optionsPath = runtime.optionsPath ?? 'webhooks';
    this.#options = parseManagerOptions(options, optionsPath);
    const logger = runtime.logger ?? silentLogger;
    const clock = runtime.clock ?? systemClock;
    this.#incoming = new IncomingWebhooks(this.#options, { logger, clock });
    this.#outgoing = new OutgoingWebhooks(this.#options.delivery, {
      logger,
      clock,
      optionsPath: `${optionsPath}.delivery`,
      definitionsPath: `${optionsPath.replace(/\.incoming$/, '')}.outgoing`,
      ...(runtime.enforceHttps === undefined ? {} : { enforceHttps: runtime.enforceHttps }),
      ...(runtime.resolveHost ? { resolveHost: runtime.resolveHost } : {}),
      ...(runtime.random ? { random: runtime.random } : {}),
      ...(runtime.defaultOutbox &&
      (options as { delivery?: { outbox?: unknown } } | undefined)?.delivery?.outbox === undefined
        ? { defaultOutbox: runtime.defaultOutbox }
        : {}),
    });
    this.#server =
      this.#options.server.port === undefined
        ? undefined
        : new WebhookServer(this.#options.server, this.#incoming, logger);
  }

  /**
   * Registers the handler of incoming `eventName` (`threat-update`): it gets the payload's `data` and its result
   * decides the answer (resolves: 204; throws: 500, so the sender retries). Several handlers of one event run in
   * the order registered. Returns the manager.
   *
   * A documented event's data is typed ({@link IncomingEventMap}) and checked before any handler runs: a
   * `threat-update` handler gets `{indicator: string, ...}` (data without an indicator is answered 400). Any other
   * event's handler gets the data unchecked, typed as the handler says (`unknown` by default).
   */
  on<Event extends keyof IncomingEventMap>(eventName: Event, handler: IncomingHandler<IncomingEventMap[Event]>): this;
  on<Data = unknown, Event extends string = string>(
    eventName: UndocumentedEvent<Event, IncomingEventMap>,
    handler: IncomingHandler<Data>,
  ): this;
  on(eventName: string, handler: IncomingHandler<never>): this {
    this.#incoming.on(eventName, handler as IncomingHandler);
    return this;
  }

  /**
   * Starts the webhook server (when `server.port` is set; otherwise the routes are served only where {@link plugin}
   * is registered) and resumes pending outgoing deliveries.
   *
   * @throws {WebhookError} when the server cannot listen (the port is taken).
   */
  async start(): Promise<void> {
    await this.#outgoing.start();
    await this.#server?.start();
  }

  /** Stops the server (requests under way finish) and the outgoing deliveries; releases every socket and timer. */
  async stop(): Promise<void> {
    await this.#server?.stop();
    await this.#outgoing.stop();
  }

  /** Counts of incoming requests handled, replayed, refused (401), rejected (other 4xx) and failed (5xx). */
  get stats(): IncomingStats {
    return this.#incoming.stats;
  }

  /** Where the manager's own server listens once started (`http://127.0.0.1:3001`), else undefined. */
  get address(): string | undefined {
    return this.#server?.address;
  }

  /**
   * The webhook routes as a fastify plugin (`POST <server.path>` and `POST <server.path>/<eventName>`), for serving
   * them on an application's own fastify (or `APIServer`'s `webhooks` option). Encapsulated: it brings its own body
   * parser, limits and error answers, and changes nothing of the application around it.
   *
   * @example
   * ```ts
   * await app.register(webhooks.plugin);
   * ```
   */
  get plugin(): FastifyPluginAsync {
    return async (app: FastifyInstance) => {
      // Refused signatures are counted per address here too (`server.failedSignatureLimit`): on the application's
      // rate limiter when it has one (its store, a Redis one included), else on one of the plugin's own.
      const failed = this.#options.server.failedSignatureLimit;
      if (failed === false) return this.#incoming.routes(app);
      if (!app.hasDecorator('createRateLimit')) await app.register(rateLimit, { global: false });
      const failures = app.createRateLimit({ max: failed.max, timeWindow: failed.windowMs });
      return this.#incoming.routes(app, { failures });
    };
  }

  /**
   * Registers an outgoing webhook: every event it lists is POSTed to its `url`, signed with Standard Webhooks when it
   * has a `secret`, with its `headers` as given. Returns the manager.
   *
   * @example
   * ```ts
   * webhooks.addOutgoing({
   *   name: 'soc',
   *   url: 'https://soc.example.com/hooks/threatlib',
   *   events: ['high-confidence-threat', 'campaign-detected'],
   *   headers: { Authorization: `Bearer ${process.env.SOC_TOKEN}` },
   *   secret: process.env.SOC_WEBHOOK_SECRET,
   * });
   * ```
   *
   * @throws {ConfigurationError} naming what is wrong with the definition, or a name already registered.
   * @throws {InsecureEndpointError} for an http URL while HTTPS is enforced.
   */
  addOutgoing(definition: OutgoingWebhookDefinition): this {
    this.#outgoing.add(definition);
    return this;
  }

  /**
   * Sends `data` as `eventName` to every outgoing webhook listing that event: written to the outbox first, then
   * POSTed; resolves once each endpoint's first attempt has ended, with one result per endpoint (`delivered`,
   * `pending` with its `nextAttemptAt`, or `failed` with its `error`). Deliveries not yet made are retried on
   * `delivery.retrySchedule`, across restarts.
   *
   * A documented event's data is typed ({@link OutgoingEventMap}: `high-confidence-threat` takes `{indicator,
   * confidence, sources}`); any other event takes any JSON data. An event that no outgoing webhook lists (and that
   * threatlib does not document) sends nothing and is logged once, as a warning, per event name.
   *
   * @throws {WebhookError} when the data is not JSON, `options.messageId` cannot be sent as a header, the outbox is
   *   full or cannot be opened, or the manager is stopping.
   */
  trigger<Event extends keyof OutgoingEventMap>(
    eventName: Event,
    data: OutgoingEventMap[Event],
    options?: TriggerOptions,
  ): Promise<DeliveryResult[]>;
  trigger<Event extends string>(
    eventName: UndocumentedEvent<Event, OutgoingEventMap>,
    data: unknown,
    options?: TriggerOptions,
  ): Promise<DeliveryResult[]>;
  trigger(eventName: string, data: unknown, options?: TriggerOptions): Promise<DeliveryResult[]> {
    return this.#outgoing.trigger(eventName, data, options);
  }

  /**
   * Sends an alert the client raised to the outgoing webhooks (used by the integration): each indicator whose
   * confidence reaches `minConfidence` (default 80) as `high-confidence-threat` `{indicator, confidence, sources}`.
   */
  sendAlert(alert: Alert, options?: { minConfidence?: number }): Promise<DeliveryResult[]> {
    return this.#outgoing.sendAlert(alert, options);
  }

  /** The outgoing deliveries waiting now and the last finished ones, optionally of one endpoint or status. */
  deliveries(filter?: { endpoint?: string; status?: DeliveryStatus }): DeliveryRecord[] {
    return this.#outgoing.deliveries(filter);
  }

  /** Counters of outgoing deliveries: delivered, failed, blocked, retried, attempts, pending; per endpoint too. */
  get deliveryStats(): OutgoingDeliveryStats {
    return this.#outgoing.stats();
  }

  /**
   * The options, with every default filled in and the signing secret shown as `[redacted]` (the manager keeps it to
   * itself, so that logging the manager, or the value `on()` returns, shows no secret).
   */
  get options(): ResolvedWebhookManagerOptions {
    this.#shownOptions ??= redactedView(this.#options);
    return this.#shownOptions;
  }

  /** What `JSON.stringify` writes of the manager: its redacted options and where it listens. */
  toJSON(): { options: ResolvedWebhookManagerOptions; address: string | undefined } {
    return { options: this.options, address: this.address };
  }

  /** What `util.inspect` and `console.log` show of the manager: {@link toJSON}'s view, never a secret. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('WebhookManager', this.toJSON(), depth, options, inspect);
  }
}
