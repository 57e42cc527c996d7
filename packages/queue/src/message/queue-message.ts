import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';

/** One message handed to a `consume` handler. */
export interface QueueMessage {
  /** The queue or topic it came from. */
  readonly source: string;
  /**
   * The body as text (UTF-8): for the pipeline's messages a JSON string, so `JSON.parse(message.content)` reads it
   * as the interface documents. Decoded on first use.
   */
  readonly content: string;
  /** The body's bytes exactly as the broker delivered them. */
  readonly raw: Buffer;
  /** Headers as text (the processor's `x-threatlib-*` included). */
  readonly headers: Readonly<Record<string, string>>;
  /** Which attempt this is: 1 the first time, 2 on the first retry... */
  readonly attempt: number;
  /** RabbitMQ: the `messageId` property, if the publisher set one. Kafka: `<topic>:<partition>:<offset>`. */
  readonly id: string | undefined;
  /** Kafka: the record's key, if any. */
  readonly key: string | undefined;
  /**
   * The body parsed as JSON.
   *
   * @throws {UnprocessableMessageError} when it is not JSON (so the message is dead-lettered, not retried).
   */
  json<T = unknown>(): T;
}

/** What a back end knows of a delivery: the message without its decoded forms. */
export type DeliveredMessage = Omit<QueueMessage, 'content' | 'json'>;

/**
 * Makes the {@link QueueMessage} a handler receives.
 *
 * @example
 * ```ts
 * const message = createQueueMessage({ source: 'q', raw: Buffer.from('{"indicator":"8.8.8.8"}'), headers: {},
 *   attempt: 1, id: undefined, key: undefined });
 * JSON.parse(message.content).indicator; // '8.8.8.8'
 * ```
 */
export function createQueueMessage(fields: DeliveredMessage): QueueMessage {
  let decoded: string | undefined;
  const content = (): string => {
    decoded ??= fields.raw.toString('utf8');
    return decoded;
  };
  return {
    ...fields,
    get content() {
      return content();
    },
    json<T>(): T {
      const text = content();
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
