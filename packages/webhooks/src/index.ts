export { WebhookError, type WebhookOperation } from './errors/webhook-error.js';
export {
  CAMPAIGN_DETECTED_EVENT,
  HIGH_CONFIDENCE_THREAT_EVENT,
  type HighConfidenceThreatData,
  type IncomingEventMap,
  type OutgoingEventMap,
  THREAT_UPDATE_EVENT,
  type ThreatUpdateData,
} from './events/documented-events.js';
export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_JSON_DEPTH_LIMIT,
  DEFAULT_REPLAY_CACHE_SIZE,
  DEFAULT_REPLAY_WINDOW_SECONDS,
  DEFAULT_TOLERANCE_SECONDS,
  DEFAULT_WEBHOOK_PATH,
  type IncomingOptions,
} from './incoming/incoming-options.js';
export type { IncomingHandler, IncomingStats } from './incoming/incoming-webhooks.js';
export type { ThreatUpdateOptions } from './integration/threat-update.js';
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
  DeliveryRecord,
  DeliveryResult,
  DeliveryStatus,
  EndpointDeliveryStats,
  OutgoingDeliveryStats,
} from './outgoing/delivery-record.js';
export { FileOutbox } from './outgoing/outbox/file-outbox.js';
export type { OutboxEntry, WebhookOutbox } from './outgoing/outbox/outbox.js';
export type { OutgoingWebhookDefinition } from './outgoing/outgoing-endpoint.js';
export {
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_OUTBOX_DIRECTORY,
  DEFAULT_RETRY_SCHEDULE,
  type OutgoingOptions,
} from './outgoing/outgoing-options.js';
export { DEFAULT_HIGH_CONFIDENCE, type TriggerOptions } from './outgoing/outgoing-webhooks.js';
