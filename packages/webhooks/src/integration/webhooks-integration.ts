import {
  type Alert,
  ConfigurationError,
  type Integration,
  type IntegrationContext,
  type IntegrationFactory,
  type IntegrationHealth,
  recordIssues,
  type ThreatClient,
} from '@threatlib/core';
import { z } from 'zod';
import { IncomingOptionsSchema } from '../incoming/incoming-options.js';
import { WebhookManager } from '../manager/webhook-manager.js';
import type { DeliveryResult, OutgoingWebhookDefinition } from '../outgoing/outgoing-webhooks.js';
import { OutgoingOptionsSchema } from '../outgoing/outgoing-webhooks.js';
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
});

/** The server options `incoming` may also take flat (`{port, path, authentication}`), as `server` holds them. */
const SERVER_KEYS = ['port', 'host', 'path', 'requestTimeoutMs'] as const;

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
    if ((SERVER_KEYS as readonly string[]).includes(key)) server[key] = value;
    else rest[key] = value;
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

  /**
   * @throws {ConfigurationError} `Configuration invalid: integrations.webhooks...` when the options are missing or
   *   invalid, naming each problem.
   */
  constructor(options: WebhooksIntegrationOptions, context: IntegrationContext) {
    const parsed = parseIntegrationOptions(options, context.optionsPath);
    const runtime = {
      logger: context.logger,
      optionsPath: `${context.optionsPath}.incoming`,
      enforceHttps: context.client.config.security.enforceHttps,
    };
    const { threatUpdate, ...incoming } = parsed.incoming ?? {};
    // Without `incoming` the manager only sends.
    this.manager = new WebhookManager({ ...incoming, delivery: parsed.delivery }, runtime);
    if (threatUpdate?.enabled) registerThreatUpdate(this.manager, context, threatUpdate);
    parsed.outgoing.forEach((definition) => {
      this.manager.addOutgoing(definition as OutgoingWebhookDefinition);
    });
  }

  async start(): Promise<void> {
    await this.manager.start();
  }

  async stop(): Promise<void> {
    await this.manager.stop();
  }

  health(): IntegrationHealth {
    const address = this.manager.address;
    return { healthy: true, ...(address === undefined ? {} : { detail: `receiving on ${address}`, address }) };
  }

  /** Sends the alert to the outgoing webhooks. */
  sendAlert(alert: Alert): Promise<DeliveryResult[]> {
    return this.manager.sendAlert(alert);
  }

  /** Webhooks know nothing about an indicator. */
  async enrichIndicator(): Promise<undefined> {
    return undefined;
  }
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
