export { WebhookError, type WebhookOperation } from './errors/webhook-error.js';
export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_JSON_DEPTH_LIMIT,
  DEFAULT_REPLAY_CACHE_SIZE,
  DEFAULT_TOLERANCE_SECONDS,
  DEFAULT_WEBHOOK_PATH,
  type IncomingOptions,
} from './incoming/incoming-options.js';
export type { IncomingHandler, IncomingStats } from './incoming/incoming-webhooks.js';
export { THREAT_UPDATE_EVENT, type ThreatUpdateOptions } from './integration/threat-update.js';
export {
  createWebhooksIntegration,
  registerWebhooks,
  WebhooksIntegration,
  type WebhooksIntegrationOptions,
} from './integration/webhooks-integration.js';
export type { ResolvedWebhookManagerOptions, WebhookManagerOptions } from './manager/manager-options.js';
export { WebhookManager, type WebhookManagerRuntime } from './manager/webhook-manager.js';
export { type WebhooksPluginOptions, webhooksPlugin } from './manager/webhooks-plugin.js';
export type {
  DeliveryResult,
  OutgoingOptions,
  OutgoingWebhookDefinition,
} from './outgoing/outgoing-webhooks.js';
