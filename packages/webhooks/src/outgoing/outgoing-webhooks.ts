import type { Alert, Clock, Logger } from '@threatlib/core';
import { z } from 'zod';
import { WebhookError } from '../errors/webhook-error.js';

/*
 * Placeholder of the outgoing side (issue 15, points 4 to 7: SSRF guard, retries, outbox, automatic events), which
 * is built in this folder separately. The manager and the integration already call it through the surface below;
 * the engineer building it replaces this file (and may split it) keeping that surface, or changes the callers too.
 */

/**
 * Options of the outgoing side (`WebhookManager`'s `delivery`, `integrations.webhooks.delivery`): the retry
 * schedule, the outbox, `allowPrivateNetworks`. None yet.
 */
export const OutgoingOptionsSchema = z.strictObject({});

/** What users write for {@link OutgoingOptionsSchema}. */
export type OutgoingOptions = z.input<typeof OutgoingOptionsSchema>;

/** An outgoing webhook definition (INTERFACE.md 2.5): where to POST which events. */
export interface OutgoingWebhookDefinition {
  /** Unique name of the endpoint. */
  name: string;
  /** Where deliveries are POSTed. */
  url: string;
  /** Event names the endpoint receives (`high-confidence-threat`, `campaign-detected`). */
  events: string[];
  /** Headers sent as given with every delivery (`Authorization: Bearer ...`). */
  headers?: Record<string, string>;
  /** Signs each delivery with Standard Webhooks when set. */
  secret?: string;
}

/** The outcome of one endpoint's delivery of a triggered event. */
export interface DeliveryResult {
  /** The endpoint's name. */
  endpoint: string;
  status: 'delivered' | 'pending' | 'failed';
}

/** What the outgoing side gets from the manager. */
export interface OutgoingRuntime {
  logger: Logger;
  clock: Clock;
  /** Where the options sit in the caller's configuration, to prefix `ConfigurationError` paths. */
  optionsPath: string;
  /** The client's `security.enforceHttps` when run as an integration (HTTPS required for endpoints). */
  enforceHttps?: boolean;
}

/** The outgoing side of a `WebhookManager`: not built yet (see the note at the top of this file). */
export class OutgoingWebhooks {
  constructor(_options: OutgoingOptions, _runtime: OutgoingRuntime) {}

  /** Number of endpoints registered. */
  get size(): number {
    return 0;
  }

  /** Registers an endpoint. */
  add(_definition: OutgoingWebhookDefinition): void {
    throw notBuilt('register');
  }

  /** Sends `data` to every endpoint listing `eventName`, resolving with one result per endpoint. */
  async trigger(_eventName: string, _data: unknown): Promise<DeliveryResult[]> {
    throw notBuilt('deliver');
  }

  /** What an alert the client raised sends out: nothing while no endpoint can be registered. */
  async sendAlert(_alert: Alert): Promise<DeliveryResult[]> {
    return [];
  }

  /** Resumes pending deliveries. */
  async start(): Promise<void> {}

  /** Ends deliveries under way and releases sockets and timers. */
  async stop(): Promise<void> {}
}

function notBuilt(operation: 'register' | 'deliver'): WebhookError {
  return new WebhookError(operation, 'outgoing webhooks are not built yet');
}
