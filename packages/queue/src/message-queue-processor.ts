import { type Logger, parseRecord, type StreamEventInput, StreamEventSchema, silentLogger } from '@threatlib/core';
import {
  type Clock,
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  type IntegrationHealth,
  inspectView,
  redactedView,
  systemClock,
} from '@threatlib/core/integration';
import { KafkaBackend } from './kafka/kafka-backend.js';
import type { PublishOptions, QueueBackend, QueueStats, Subscription } from './message/backend.js';
import type { MessageHandler } from './message/queue-message.js';
import {
  type KafkaOptions,
  type MessageQueueOptions,
  parseProcessorOptions,
  type RabbitMqOptions,
  type ResolvedKafkaOptions,
  type ResolvedRabbitMqOptions,
} from './options/processor-options.js';
import { RabbitMqBackend } from './rabbitmq/rabbitmq-backend.js';

/**
 * A record for `produce`: the value is a stream event; the key decides the partition (the indicator, so one
 * indicator's records stay in order).
 */
export interface StreamRecord {
  key?: string;
  value: StreamEventInput;
}

/** The brokers a processor can use. */
export type BrokerType = 'rabbitmq' | 'kafka';

/** What a processor needs besides its options. */
export interface ProcessorRuntime {
  /** Where connection losses, retries and dead-lettered messages are reported (default: nowhere). */
  logger?: Logger;
  /** Clock for backoff, batching and deadlines (default: the real one). */
  clock?: Clock;
  /** Prefixes every path in an options error (`integrations.messageQueue`). */
  optionsPath?: string;
}

type OptionsFor<T extends BrokerType> = T extends 'rabbitmq' ? RabbitMqOptions : KafkaOptions;
type ResolvedFor<T extends BrokerType> = T extends 'rabbitmq' ? ResolvedRabbitMqOptions : ResolvedKafkaOptions;

/**
 * Consumes and publishes messages on RabbitMQ or Kafka without losing any: a consumed message is acknowledged (or
 * its offset committed) only after its handler resolved; a failing handler is retried with exponential backoff up
 * to `maxAttempts`, then the message goes to `<queue>.dlq` with the error in its headers; `publish` resolves only
 * once the broker confirmed. Connections lost are re-established and consumption resumes.
 *
 * @example
 * ```ts
 * const processor = new MessageQueueProcessor({
 *   type: 'rabbitmq',
 *   connection: 'amqp://guest:guest@127.0.0.1:5672',
 *   queues: { incoming: 'iocs', processed: 'iocs.results', alerts: 'iocs.alerts' },
 *   prefetch: 20,
 *   maxAttempts: 5,
 * });
 * await processor.consume('iocs', async (message) => {
 *   const { indicator } = message.json<{ indicator: string }>();
 *   await processor.publish('iocs.results', { indicator, seen: true });
 * });
 * // ...
 * await processor.stop(); // waits for handlers still running
 * ```
 */
export class MessageQueueProcessor<T extends BrokerType = BrokerType> {
  readonly #options: ResolvedFor<T>;
  #shownOptions: ResolvedFor<T> | undefined;
  readonly #backend: QueueBackend;

  /** @throws {ConfigurationError} naming every invalid option (`Configuration invalid: prefetch: ...`). */
  constructor(options: OptionsFor<T> & { type: T }, runtime: ProcessorRuntime = {}) {
    const resolved = parseProcessorOptions(options as MessageQueueOptions, runtime.optionsPath);
    this.#options = resolved as ResolvedFor<T>;
    const logger = runtime.logger ?? silentLogger;
    const clock = runtime.clock ?? systemClock;
    this.#backend =
      resolved.type === 'rabbitmq'
        ? new RabbitMqBackend(resolved, logger, clock)
        : new KafkaBackend(resolved, logger, clock);
  }

  /** `rabbitmq` or `kafka`. */
  get type(): T {
    return this.#options.type as T;
  }

  /**
   * The options in force, every default filled in, with the password of the AMQP URL shown as `[redacted]`
   * (`amqp://user:[redacted]@host:5672`): the processor keeps its credentials to itself, so that logging it shows none.
   */
  get options(): ResolvedFor<T> {
    this.#shownOptions ??= redactedView(this.#options);
    return this.#shownOptions;
  }

  /** Counters since the processor was made: delivered, completed, retried, dead-lettered, published, reconnections. */
  get stats(): Readonly<QueueStats> {
    return { ...this.#backend.stats };
  }

  /**
   * Connects. Optional: `publish` and `consume` connect on first use.
   *
   * @throws {QueueError} when the broker cannot be reached.
   */
  start(): Promise<void> {
    return this.#backend.start();
  }

  /**
   * Publishes `payload` (an object or array is sent as JSON; a string or Buffer as it is) to a queue (RabbitMQ:
   * durable, declared if missing, the message persistent) or topic (Kafka), and resolves once the broker confirmed
   * it. RabbitMQ: while the connection is being re-established it waits, and sends again what was not confirmed, up
   * to `publishTimeout`.
   *
   * @throws {QueueError} when the broker did not confirm it in time, or the processor is stopped.
   */
  async publish(destination: string, payload: unknown, options: PublishOptions = {}): Promise<void> {
    return this.#backend.publish(destination, encode(payload), options);
  }

  /**
   * Kafka: produces a stream event `{indicator, threatLevel, sources, timestamp}` (core's `StreamEventSchema`:
   * `threatLevel` `low`, `medium`, `high` or `critical`, timestamp in epoch ms), batched by `streamProcessing`;
   * resolves when the batch it went in was acknowledged.
   *
   * @example
   * ```ts
   * await kafka.produce('threatlib.threats', {
   *   key: '198.51.100.4',
   *   value: { indicator: '198.51.100.4', threatLevel: 'high', sources: ['feed_abuse'], timestamp: Date.now() },
   * });
   * ```
   *
   * @throws {ValidationError} `Invalid stream event: threatLevel: ...` when `value` is not a stream event.
   * @throws {QueueError} when Kafka did not acknowledge it.
   */
  async produce(this: MessageQueueProcessor<'kafka'>, topic: string, record: StreamRecord): Promise<void> {
    const value = parseRecord(StreamEventSchema, record?.value, 'stream event');
    return this.#backend.publish(topic, Buffer.from(JSON.stringify(value)), {
      ...(record.key !== undefined ? { key: record.key } : {}),
    });
  }

  /**
   * Calls `handler` for every message of a queue (RabbitMQ, declared if missing) or topic (Kafka, consumer group
   * `<groupId>.<topic>`). Up to `prefetch` handlers run at once. A message is acknowledged only after `handler`
   * resolved; when it throws the message is retried after a backoff, and dead-lettered to `<source>.dlq` after
   * `maxAttempts` failures, or at once for an {@link UnprocessableMessageError}.
   */
  consume(source: string, handler: MessageHandler): Promise<Subscription> {
    return this.#backend.consume(source, handler);
  }

  /**
   * Stops consuming, waits (up to `drainTimeout`) for the handlers still running, flushes what is being produced,
   * and closes the connection. Messages whose handler did not finish are redelivered to the next consumer.
   */
  stop(): Promise<void> {
    return this.#backend.stop();
  }

  /** Whether the processor is connected, with its counters. */
  health(): IntegrationHealth {
    return this.#backend.health();
  }

  /** What `JSON.stringify` writes of the processor: its broker type and redacted options. */
  toJSON(): { type: T; options: ResolvedFor<T> } {
    return { type: this.type, options: this.options };
  }

  /** What `util.inspect` and `console.log` show of the processor: {@link toJSON}'s view, never a password. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('MessageQueueProcessor', this.toJSON(), depth, options, inspect);
  }
}

function encode(payload: unknown): Buffer {
  if (Buffer.isBuffer(payload)) return payload;
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload);
  const json = JSON.stringify(payload);
  if (json === undefined) throw new TypeError(`Cannot publish ${typeof payload}: expected an object, string or Buffer`);
  return Buffer.from(json, 'utf8');
}
