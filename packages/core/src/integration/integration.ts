import type { Alert } from '../alerts/alert.js';
import type { AlertStore } from '../alerts/alert-store.js';
import type { CorrelationResult } from '../client/correlation-result.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { HttpClient } from '../http/http-client.js';
import type { ListStateStore } from '../lists/taxii/list-state-store.js';
import type { Logger } from '../logging/logger.js';
import type { OAuth2TokenSource } from '../oauth2/client-credentials.js';
import type { IndicatorRef } from '../records/indicator-record.js';
import type { ScoutOptions, ScoutResult } from '../scout/scout-engine.js';
import type { IntegrationFactory } from './integration-factory.js';

/** An integration's own report of whether it can do its work. */
export interface IntegrationHealth {
  healthy: boolean;
  /** Short human-readable detail (`connected to amqp://127.0.0.1:5672`, `3 messages buffered`). */
  detail?: string;
  [extra: string]: unknown;
}

/**
 * The contract every integration implements: a SIEM connector, a webhook sender, a queue processor, a storage back
 * end, a third party's plugin. `sendAlert` and `enrichIndicator` are required; lifecycle methods are optional.
 *
 * An integration is a value made by a factory. A package hands one to core through the {@link IntegrationFactory} it
 * exports for its `integrations` key (`createSiemIntegration(options, context)`), which `client.start()` imports and
 * calls (see `INTEGRATION_PACKAGES`); an application registers a class of its own with `client.registerIntegration`.
 * Either way the value is checked, not its class: methods may be instance fields.
 */
export interface Integration {
  /** Version of this contract the integration was written against; absent means `v1`. */
  readonly specificationVersion?: 'v1';
  /** Connects, opens sockets, starts timers. Called by `client.start()`. */
  start?(): Promise<void> | void;
  /** Releases every socket and timer it holds. Called by `client.stop()`. */
  stop?(): Promise<void> | void;
  health?(): Promise<IntegrationHealth> | IntegrationHealth;
  /**
   * A persistent alert store this integration offers (a storage integration's). Once it has started, `client.alerts`
   * keeps alerts there instead of in the store the client was made with (the alerts already there are copied over),
   * until `client.stop()`; alerts are not delivered to the integration that keeps them.
   */
  readonly alertStore?: AlertStore;
  /**
   * Where a list fed over the network (a TAXII list, `lists[].taxii`) keeps its position and what it holds between
   * runs, when this integration can keep it (a database several instances share); `name` is the list's source id
   * (`list:<name>`). Without one, core keeps it in a file.
   */
  listStateStore?(name: string): ListStateStore | undefined;
  /**
   * Delivers an alert to the system the integration talks to; resolves with that system's answer. The client hands
   * over a stored {@link Alert} (validated, severity in lower case, indicators with their precise types; the record
   * core validated, deeply frozen, when it has it: `isNormalisedAlert`, so copy it to change it), keeps the
   * answer (JSON, at most 16 KiB) on the alert's `deliveries`, and retries a rejection with backoff: up to the
   * integration's own `retries` (from its options or a `retries` property; else `performance.retryAttempts`), each
   * attempt given its `timeout` ms (else `performance.requestTimeout`). Reject with an error whose `isRetryable`
   * is false when trying again cannot help. `options.signal` aborts when the attempt times out or the client
   * stops: pass it on to the request.
   */
  sendAlert(alert: Alert, options?: SendAlertOptions): Promise<unknown>;
  /**
   * Adds what the integration knows about an indicator, as an `EnrichedIndicator` (`EnrichedIndicatorSchema`), or
   * resolves undefined when it knows nothing. `indicator` is `{type, value}`; `type` may be `ip` or `hostname`
   * (parse it with `IndicatorRefSchema` to get the precise type).
   */
  enrichIndicator(indicator: IndicatorRef): Promise<unknown>;
}

/** What the client passes to {@link Integration.sendAlert} besides the alert. */
export interface SendAlertOptions {
  /** Aborts when the attempt has taken the integration's `timeout`, or the client is stopping. */
  signal?: AbortSignal;
}

/** The part of the client an integration may use. */
export interface IntegrationClient {
  readonly config: ResolvedConfig;
  /** The client's alert store (memory unless a storage integration replaced it). */
  readonly alerts: AlertStore;
  /** `client.scout`: asks every configured source about an indicator. */
  scout(indicator: string, options?: ScoutOptions): Promise<ScoutResult>;
  /** `client.correlate`: scouts an indicator and combines the answers into one verdict (a queue pipeline uses it). */
  correlate(indicator: string, options?: ScoutOptions): Promise<CorrelationResult>;
  /**
   * `client.integration(name)`: another integration the client holds (registered, or built from `integrations`),
   * typed by {@link IntegrationRegistry}, for one that works with another (the webhooks keep their outbox in the
   * storage integration's database). All are built before any starts, but they start in order: one found from a
   * constructor or `start()` may not have started yet. Undefined when the client holds none of that name.
   */
  integration<K extends keyof IntegrationRegistry>(name: K): IntegrationRegistry[K] | undefined;
  integration(name: string): Integration | undefined;
}

/** What an integration receives when the client instantiates it. */
export interface IntegrationContext {
  /** The name it was registered under. */
  name: string;
  /**
   * Where its options sit in the client's configuration (`integrations.siem`): prefix the paths of a
   * `ConfigurationError` about them with it.
   */
  optionsPath: string;
  client: IntegrationClient;
  /** The client's logger (secrets redacted). */
  logger: Logger;
  /** The client's event bus: listen to `threatFound`, `feedError`… */
  events: EventBus<ThreatEvents>;
  /** The client's pooled HTTP client; closed by `client.stop()`, so use it rather than a global agent. */
  http: HttpClient;
  /**
   * OAuth 2.0 access tokens for calling an endpoint that needs them, when the client's `security.authentication`
   * is `oauth2` (see `ThreatClient.oauth2`): send `authorization: Bearer <token>` with the token of `getToken()`.
   */
  oauth2?: OAuth2TokenSource;
  /**
   * Refuses a URL the security options forbid (plain HTTP while `security.enforceHttps` is on). Call it on every
   * endpoint from options before using it.
   */
  checkEndpoint(url: string, what: string): URL;
}

/** A class implementing {@link Integration}, instantiated by `registerIntegration` with its options and context. */
export type IntegrationClass<Options = unknown, I extends Integration = Integration> = new (
  options: Options,
  context: IntegrationContext,
) => I;

/**
 * Names integrations register under, and the type each one has. Empty in core: each integration package adds its
 * entry by declaration merging, so `client.integration('queue')` is typed.
 *
 * @example
 * ```ts
 * declare module '@threatlib/core' {
 *   interface IntegrationRegistry { queue: MessageQueueProcessor }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in integration packages.
export interface IntegrationRegistry {}
