// The outbox contract is core's (`@threatlib/core/integration`), shared with the storage back ends that implement it;
// this package names it as it always has.
import type { WebhookOutboxEntry } from '@threatlib/core/integration';

export type { WebhookOutbox } from '@threatlib/core/integration';

/**
 * One delivery waiting in an outbox (core's `WebhookOutboxEntry`): a message for one endpoint, kept from before its
 * first attempt until it succeeded or finally failed.
 */
export type OutboxEntry = WebhookOutboxEntry;

/** The key of a delivery of `messageId` to `endpoint`. */
export function outboxKey(endpoint: string, messageId: string): string {
  return `${endpoint}\n${messageId}`;
}
