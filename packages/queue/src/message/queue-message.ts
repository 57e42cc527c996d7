import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';

/** One message handed to a `consume` handler. */
export interface QueueMessage {
  /** The queue or topic it came from. */
  readonly source: string;
  /** The body as the broker delivered it. */
  readonly content: Buffer;
  /** Headers as text (the processor's `x-threatlib-*` included). */
  readonly headers: Readonly<Record<string, string>>;
  /** Which attempt this is: 1 the first time, 2 on the first retry... */
  readonly attempt: number;
  /** RabbitMQ: the `messageId` property, if the publisher set one. Kafka: `<topic>:<partition>:<offset>`. */
  readonly id: string | undefined;
  /** Kafka: the record's key, if any. */
  readonly key: string | undefined;
  /** The body as UTF-8 text. */
  text(): string;
  /**
   * The body parsed as JSON.
   *
   * @throws {UnprocessableMessageError} when it is not JSON (so the message is dead-lettered, not retried).
   */
  json<T = unknown>(): T;
}

/** Makes the {@link QueueMessage} a handler receives. */
export function createQueueMessage(fields: Omit<QueueMessage, 'text' | 'json'>): QueueMessage {
  return {
    ...fields,
    text() {
      return fields.content.toString('utf8');
    },
    json<T>(): T {
      const text = fields.content.toString('utf8');
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
        throw new UnprocessableMessageError(
          `message is not JSON (${(error as Error).message}): ${JSON.stringify(shown)}`,
          { cause: error },
        );
      }
    },
  };
}

/** What a `consume` handler is: resolve to have the message acknowledged, throw to have it retried. */
export type MessageHandler = (message: QueueMessage) => Promise<void> | void;
