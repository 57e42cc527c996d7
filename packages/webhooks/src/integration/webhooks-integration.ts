import { type Alert, type CampaignDetectedEvent, ConfigurationError, type ThreatClient } from '@threatlib/core';
import {
  confidenceSchema,
  type Integration,
  type IntegrationContext,
  type IntegrationFactory,
  type IntegrationHealth,
  recordIssues,
  setOwn,
} from '@threatlib/core/integration';
import { z } from 'zod';
import { WebhookError } from '../errors/webhook-error.js';
import { CAMPAIGN_DETECTED_EVENT } from '../events/documented-events.js';
import { IncomingOptionsSchema } from '../incoming/incoming-options.js';
import type { IncomingStats } from '../incoming/incoming-webhooks.js';
import { WebhookManager } from '../manager/webhook-manager.js';
import type { OutgoingDeliveryStats } from '../outgoing/delivery-record.js';
import { derivedMessageId } from '../outgoing/message-id.js';
import type { WebhookOutbox } from '../outgoing/outbox/outbox.js';
import type { DeliveryResult, OutgoingWebhookDefinition } from '../outgoing/outgoing-webhooks.js';
import { DEFAULT_HIGH_CONFIDENCE, OutgoingOptionsSchema } from '../outgoing/outgoing-webhooks.js';
import { registerThreatUpdate, ThreatUpdateOptionsSchema } from './threat-update.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The webhooks `client.start()` builds from `integrations.webhooks` (or `registerWebhooks` adds). */
    webhooks: WebhooksIntegration;
  }
}

/**
 * `integrations.webhooks`: `incoming` (the `WebhookManager`'s `server`, `authentication` and `limits`, and the
 * built-in `threatUpdate` flow's options), `outgoing` (the outgoing webhook definitions) and `delivery` (the
 * outgoing side's options).
 */
export const WebhooksIntegrationOptionsSchema = z.strictObject({
  incoming: z
    .preprocess(
      liftServerOptions,
      z.strictObject({
        ...IncomingOptionsSchema.shape,
        authentication: IncomingOptionsSchema.shape.authentication.unwrap(),
        threatUpdate: ThreatUpdateOptionsSchema.prefault({}),
      }),
    )
    .optional(),
  outgoing: z.array(z.unknown()).default([]),
  delivery: OutgoingOptionsSchema.prefault({}),
  automaticEvents: z
    .strictObject({
      /**
       * `high-confidence-threat` `{indicator, confidence, sources}` for each indicator of an alert the client raises
       * whose confidence reaches `minConfidence` (default 80).
       */
      highConfidenceThreat: z
        .strictObject({
          enabled: z.boolean().default(true),
          minConfidence: confidenceSchema('minConfidence').default(DEFAULT_HIGH_CONFIDENCE),
        })
        .prefault({}),
      /** `campaign-detected` for each campaign the client's tracker reports (see core's `campaigns` options). */
      campaignDetected: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
    })
    .prefault({}),
});

/** The server options `incoming` may also take flat (`{port, path, authentication}`), as `server` holds them. */
const SERVER_KEYS = [
  'port',
  'host',
  'path',
  'requestTimeoutMs',
  'headersTimeoutMs',
  'keepAliveTimeoutMs',
  'connectionTimeoutMs',
  'maxConnectionsPerAddress',
  'rateLimit',
  'failedSignatureLimit',
  'pathEvents',
] as const;

/**
 * `incoming: {port, path, ...}` read as `incoming: {server: {port, path}, ...}`, the constructor's shape, when it
 * has no `server` of its own (with one, the flat keys stay and are refused as unknown).
 */
function liftServerOptions(incoming: unknown): unknown {
  if (typeof incoming !== 'object' || incoming === null || Array.isArray(incoming)) return incoming;
  const record = incoming as Record<string, unknown>;
  if (record.server !== undefined || !SERVER_KEYS.some((key) => Object.hasOwn(record, key))) return incoming;
  const server: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // Own keys whatever their name: a "__proto__" assigned would become a prototype whose fields read as options.
    setOwn((SERVER_KEYS as readonly string[]).includes(key) ? server : rest, key, value);
  }
  return { ...rest, server };
}

/** What users write for `integrations.webhooks`. */
export type WebhooksIntegrationOptions = z.input<typeof WebhooksIntegrationOptionsSchema>;

/**
 * The webhooks as a client integration: `start()` (run by `client.start()`) opens the incoming server and resumes
 * outgoing deliveries; with `incoming` configured, a `threat-update` is correlated and raises an alert through the
 * client (so it reaches every integration, a SIEM included) when the correlation's confidence passes
 * `incoming.threatUpdate.minConfidence`. `manager` is the `WebhookManager` behind it (register more handlers with
 * `manager.on`, serve it on `APIServer` with its `webhooks` option).
 */
export class WebhooksIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The manager behind the integration. */
  readonly manager: WebhookManager;
  readonly #context: IntegrationContext;
  readonly #automatic: z.output<typeof WebhooksIntegrationOptionsSchema>['automaticEvents'];
  readonly #onCampaign = (campaign: CampaignDetectedEvent) => {
    // The same report (a campaign at the same size) always carries the same webhook-id.
    const messageId = derivedMessageId(CAMPAIGN_DETECTED_EVENT, campaign.campaign, String(campaign.indicatorCount));
    this.manager.trigger(CAMPAIGN_DETECTED_EVENT, campaign, { messageId }).catch((error: unknown) => {
      this.#context.logger.error(
        { err: error, campaign: campaign.campaign },
        `campaign ${campaign.campaign} could not be sent to the outgoing webhooks: ${(error as Error)?.message ?? error}`,
      );
    });
  };

  /**
   * @throws {ConfigurationError} `Configuration invalid: integrations.webhooks...` when the options are missing or
   *   invalid, naming each problem.
   */
  constructor(options: WebhooksIntegrationOptions, context: IntegrationContext) {
    const parsed = parseIntegrationOptions(options, context.optionsPath);
    this.#context = context;
    this.#automatic = parsed.automaticEvents;
    const runtime = {
      logger: context.logger,
      optionsPath: `${context.optionsPath}.incoming`,
      enforceHttps: context.client.config.security.enforceHttps,
      defaultOutbox: () => storageOutbox(context),
    };
    const { threatUpdate, ...incoming } = parsed.incoming ?? {};
    // An outbox not written in the options is left out, so the storage integration's may take the file's place.
    const { outbox, ...delivery } = parsed.delivery;
    const outboxGiven = (options as { delivery?: { outbox?: unknown } }).delivery?.outbox !== undefined;
    // Without `incoming` the manager only sends.
    this.manager = new WebhookManager(
      { ...incoming, delivery: outboxGiven ? { ...delivery, outbox } : delivery },
      runtime,
    );
    if (threatUpdate?.enabled) registerThreatUpdate(this.manager, context, threatUpdate);
    parsed.outgoing.forEach((definition) => {
      this.manager.addOutgoing(definition as OutgoingWebhookDefinition);
    });
  }

  async start(): Promise<void> {
    await this.manager.start();
    if (this.#automatic.campaignDetected.enabled) this.#context.events.on('campaignDetected', this.#onCampaign);
  }

  async stop(): Promise<void> {
    this.#context.events.off('campaignDetected', this.#onCampaign);
    await this.manager.stop();
  }

  /** What the client's metrics read: incoming requests by outcome, and outgoing deliveries (per endpoint too). */
  stats(): { incoming: IncomingStats; outgoing: OutgoingDeliveryStats } {
    return { incoming: this.manager.stats, outgoing: this.manager.deliveryStats };
  }

  health(): IntegrationHealth {
    const address = this.manager.address;
    return { healthy: true, ...(address === undefined ? {} : { detail: `receiving on ${address}`, address }) };
  }

  /**
   * Sends each indicator of the alert whose confidence reaches `automaticEvents.highConfidenceThreat.minConfidence`
   * as `high-confidence-threat`. Resolves once each delivery was attempted once (a delivery still pending waits in
   * the outbox); rejects when one could not be made at all (the address refused, 410 Gone, the outbox failing),
   * so that the alert records the failure and the client's redelivery retries only what did not arrive.
   */
  async sendAlert(alert: Alert): Promise<DeliveryResult[]> {
    const { enabled, minConfidence } = this.#automatic.highConfidenceThreat;
    if (!enabled) return [];
    const results = await this.manager.sendAlert(alert, { minConfidence });
    const failed = results.filter((result) => result.status === 'failed');
    if (failed.length > 0) {
      throw new WebhookError(
        'deliver',
        `high-confidence-threat not delivered to ${failed.map((result) => `"${result.endpoint}" (${result.error})`).join(', ')}`,
        { isRetryable: failed.some((result) => result.error?.startsWith('the outbox') === true) },
      );
    }
    return results;
  }

  /** Webhooks know nothing about an indicator. */
  async enrichIndicator(): Promise<undefined> {
    return undefined;
  }
}

/**
 * The outbox of the storage integration the client holds (`integrations.storage`), when its back end keeps one (the
 * document store); otherwise undefined, and the deliveries wait in the file outbox.
 */
function storageOutbox(context: IntegrationContext): WebhookOutbox | undefined {
  const storage = context.client.integration('storage') as { webhookOutbox?: (name: string) => unknown } | undefined;
  if (storage === undefined) return undefined;
  const outbox = typeof storage.webhookOutbox === 'function' ? storage.webhookOutbox(context.name) : undefined;
  if (outbox === undefined) {
    context.logger.info(
      {},
      'the storage integration keeps no webhook outbox (its back end has none): outgoing deliveries wait in the file outbox',
    );
    return undefined;
  }
  context.logger.info(
    { outbox: context.name },
    `outgoing webhook deliveries wait in the storage integration's database (outbox "${context.name}")`,
  );
  return outbox as WebhookOutbox;
}

function parseIntegrationOptions(options: unknown, optionsPath: string) {
  if (options === undefined || options === null || Object.keys(options as object).length === 0) {
    throw new ConfigurationError([
      {
        path: optionsPath,
        message:
          'not configured: set incoming: {server: {port, path}, authentication: {type: "hmac", secret}} and/or outgoing: [{name, url, events}]',
      },
    ]);
  }
  const result = WebhooksIntegrationOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  throw new ConfigurationError(
    recordIssues(result.error.issues).map((issue) => ({
      path: issue.path === '(root)' ? optionsPath : `${optionsPath}.${issue.path}`,
      message: issue.message,
    })),
  );
}

/**
 * The factory `client.start()` calls for `integrations.webhooks` (core imports it from `@threatlib/webhooks`).
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: {
 *     webhooks: {
 *       incoming: { server: { port: 3001, path: '/webhooks' }, authentication: { type: 'hmac', secret: process.env.WEBHOOK_SECRET! } },
 *     },
 *   },
 * });
 * await client.start(); // threat-update webhooks are verified, correlated, and alerted on above confidence 80
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.webhooks.<option>: ...` naming each problem.
 */
export const createWebhooksIntegration: IntegrationFactory<WebhooksIntegrationOptions, WebhooksIntegration> = (
  options,
  context,
) => new WebhooksIntegration(options, context);

/**
 * Registers the webhooks on `client` as `webhooks` now, with `options` or else the client's
 * `integrations.webhooks`, and returns the integration: for holding its manager before `start()` (to add handlers,
 * or give it to `APIServer`). A client configured with `integrations.webhooks` needs no such call.
 *
 * @throws {IntegrationError} when the options are invalid (the cause is a `ConfigurationError` naming each one).
 */
export function registerWebhooks(client: ThreatClient, options?: WebhooksIntegrationOptions): WebhooksIntegration {
  return client.registerIntegration('webhooks', WebhooksIntegration, options);
}
