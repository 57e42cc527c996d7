// What the outgoing side is given: the manager's runtime, the options of one trigger, and the alert threshold.
import type { Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import type { HostResolver } from '../network/guarded-agent.js';
import type { WebhookOutbox } from './outbox/outbox.js';

/** An alert's indicator is sent as `high-confidence-threat` from this confidence on (0 to 100). */
export const DEFAULT_HIGH_CONFIDENCE = 80;

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
