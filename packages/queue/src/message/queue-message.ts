import { checkJsonStructure, type JsonStructureFault, prototypeKeyPath } from '@threatlib/core/integration';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';

/** How deep a message's JSON may nest; a deeper one is refused before it is parsed. */
export const MESSAGE_JSON_DEPTH_LIMIT = 32;

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
   * The body parsed as JSON, after a one-pass check of its structure: nesting deeper than
   * {@link MESSAGE_JSON_DEPTH_LIMIT} and an object that repeats a key (which `JSON.parse` would resolve silently, last
   * one wins, where another reader keeps the first) are refused, and so is a `__proto__` key at any depth (as the REST
   * server and the webhook receiver refuse it): a handler merging the message into an object would have it replace
   * that object's prototype.
   *
   * @throws {UnprocessableMessageError} when it is not JSON or its structure is refused (so the message is
   *   dead-lettered with the reason, not retried).
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
      const fault = checkJsonStructure(text, MESSAGE_JSON_DEPTH_LIMIT);
      if (fault) throw new UnprocessableMessageError(`message JSON refused: ${describeFault(fault)}`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
        throw new UnprocessableMessageError(
          `message is not JSON (${(error as Error).message}): ${JSON.stringify(shown)}`,
          { cause: error },
        );
      }
      // Only when the text may spell the key (as it is, or with a \u escape): most messages never pay for the walk.
      const mayHold = text.includes('__proto__') || text.includes('\\u');
      const at = mayHold ? prototypeKeyPath(parsed, PROTO_KEY) : undefined;
      if (at !== undefined) {
        throw new UnprocessableMessageError(
          `message JSON refused: the key "__proto__" at ${JSON.stringify(at)} is refused (prototype pollution); rename it`,
        );
      }
      return parsed as T;
    },
  };
}

const PROTO_KEY: ReadonlySet<string> = new Set(['__proto__']);

/** What a `consume` handler is: resolve to have the message acknowledged, throw to have it retried. */
export type MessageHandler = (message: QueueMessage) => Promise<void> | void;

/** Where a refused structure is, in words; the path is keys and indexes only, never values. */
function describeFault(fault: JsonStructureFault): string {
  const where = fault.path.length === 0 ? 'the top level' : fault.path.map((p) => JSON.stringify(p)).join(' > ');
  const shown = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  return fault.kind === 'too-deep'
    ? `nested deeper than ${fault.limit} levels at ${shown(where)}`
    : `the key ${shown(fault.key)} appears twice in the object at ${shown(where)}`;
}
