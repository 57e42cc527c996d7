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

/**
 * What a message id may be: 1 to 256 printable ASCII characters without spaces. It is sent as the `webhook-id`
 * header (where a line break or a control character cannot go) and receivers check it the same way (threatlib's own,
 * the Standard Webhooks libraries).
 */
const MESSAGE_ID = /^[\x21-\x7e]{1,256}$/;

/** Why `id` cannot be a message id, saying what was received (escaped), or undefined when it can. */
export function messageIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return `expected a string; got ${id === null ? 'null' : typeof id}`;
  if (MESSAGE_ID.test(id)) return undefined;
  const quoted = JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
  const what =
    id.length === 0
      ? 'it is empty'
      : id.length > 256
        ? `it has ${id.length} characters`
        : /[\r\n]/.test(id)
          ? 'it has a line break'
          : / /.test(id)
            ? 'it has a space'
            : // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
              /[\x00-\x1f\x7f]/.test(id)
              ? 'it has a control character'
              : 'it has a character outside printable ASCII';
  return `must be 1 to 256 printable ASCII characters without spaces (it is sent as the webhook-id header); ${what}: ${quoted}`;
}
