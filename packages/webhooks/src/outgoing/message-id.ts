import { createHash, randomUUID } from 'node:crypto';

/**
 * A new message id: `msg_` and a random UUID's 122 random bits in hex (`randomUUID` draws from a cached pool, where
 * `randomBytes` asks the kernel every time).
 */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/**
 * The message id of a message made from the same facts every time (an alert's id and indicator): a message sent
 * again for them (the client redelivering an alert after a restart) carries the same `webhook-id`, and a receiver
 * drops the duplicate.
 */
export function derivedMessageId(...facts: string[]): string {
  return `msg_${createHash('sha256').update(facts.join('\0')).digest('base64url').slice(0, 22)}`;
}
