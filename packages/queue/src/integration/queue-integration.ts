import { type Alert, ConfigurationError, type ThreatClient } from '@threatlib/core';
import type {
  Integration,
  IntegrationContext,
  IntegrationFactory,
  IntegrationHealth,
} from '@threatlib/core/integration';
import type { Subscription } from '../message/backend.js';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import type { MessageQueueOptions } from '../options/processor-options.js';
import { createIndicatorPipeline } from '../pipeline/indicator-pipeline.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The queue pipeline `client.start()` builds from `integrations.messageQueue` (or `registerMessageQueue` adds). */
    messageQueue: MessageQueueIntegration;
  }
}

/**
 * The queue pipeline as a client integration: `start()` (run by `client.start()`) connects and consumes the incoming
 * queue or topic with {@link createIndicatorPipeline}, scanning with the client's `correlate` from its context;
 * `stop()` drains the handlers still running and disconnects; `sendAlert` publishes an alert to the alerts queue or
 * topic. The alert the client raises for a threat read from the incoming queue is the one message the alerts queue
 * gets for it (RabbitMQ: the incoming message is acknowledged once it is there).
 */
export class MessageQueueIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The processor behind the pipeline, for publishing or consuming more. */
  readonly processor: MessageQueueProcessor;
  readonly #context: IntegrationContext;
  #subscription: Subscription | undefined;

  /**
   * @throws {ConfigurationError} `Configuration invalid: integrations.messageQueue...` when the options are missing
   *   or invalid, naming each problem.
   */
  constructor(options: MessageQueueOptions, context: IntegrationContext) {
    if (options === undefined || options === null || Object.keys(options as object).length === 0) {
      throw new ConfigurationError([
        {
          path: context.optionsPath,
          message: 'not configured: set {type: "rabbitmq", connection, queues} or {type: "kafka", brokers, topics}',
        },
      ]);
    }
    this.#context = context;
    const withBatching =
      options.type === 'kafka' && (options as { streamProcessing?: unknown }).streamProcessing === undefined
        ? { ...options, streamProcessing: context.client.config.enterprise.streamProcessing }
        : options;
    this.processor = new MessageQueueProcessor(withBatching, {
      logger: context.logger,
      optionsPath: context.optionsPath,
    });
  }

  async start(): Promise<void> {
    await this.processor.start();
    const incoming =
      this.processor.options.type === 'rabbitmq'
        ? this.processor.options.queues.incoming
        : this.processor.options.topics.incoming;
    // The client's alert for a threat reaches the alerts queue through sendAlert: the pipeline waits for it.
    const pipeline = createIndicatorPipeline(this.#context.client, this.processor, {
      alertsDeliveredAs: this.#context.name,
    });
    let open!: () => void;
    const delivering = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.#subscription = await this.processor.consume(incoming, async (message) => {
      await delivering;
      return pipeline(message);
    });
    // The client delivers alerts to an integration once it counts it started, just after start() has returned. The
    // messages already waiting are handed over before that: they wait for it, so their alerts reach this queue too.
    setImmediate(open);
  }

  async stop(): Promise<void> {
    this.#subscription = undefined;
    await this.processor.stop();
  }

  health(): IntegrationHealth {
    return { ...this.processor.health(), consuming: this.#subscription?.source };
  }

  /** Publishes the alert (as JSON) to the alerts queue (RabbitMQ) or topic (Kafka, keyed by the alert's id). */
  async sendAlert(alert: Alert): Promise<{ queue: string }> {
    const options = this.processor.options;
    const queue = options.type === 'rabbitmq' ? options.queues.alerts : options.topics.alerts;
    await this.processor.publish(queue, alert, { key: alert.id, messageId: alert.id });
    return { queue };
  }

  /** A queue knows nothing about an indicator. */
  async enrichIndicator(): Promise<undefined> {
    return undefined;
  }
}

/**
 * The factory `client.start()` calls for `integrations.messageQueue` (core imports it from `@threatlib/queue`): a
 * client configured with a queue consumes it once started, with no other call.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: {
 *     messageQueue: {
 *       type: 'rabbitmq',
 *       connection: 'amqp://guest:guest@127.0.0.1:5672',
 *       queues: { incoming: 'iocs', processed: 'iocs.results', alerts: 'iocs.alerts' },
 *     },
 *   },
 * });
 * await client.start(); // imports @threatlib/queue, builds the pipeline, consumes "iocs"
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.messageQueue.<option>: ...` naming each problem.
 */
export const createMessageQueueIntegration: IntegrationFactory<MessageQueueOptions, MessageQueueIntegration> = (
  options,
  context,
) => new MessageQueueIntegration(options, context);

/**
 * Registers the queue pipeline on `client` as `messageQueue` now, with `options` or else the client's
 * `integrations.messageQueue`, and returns it: for holding the integration before `start()`, or options that are not
 * in the configuration. `client.start()` then starts consuming and `client.stop()` drains and disconnects. A client
 * configured with `integrations.messageQueue` needs no such call.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({ sources: ['feed_urls'] });
 * const queue = registerMessageQueue(client, { type: 'rabbitmq', connection: 'amqp://127.0.0.1:5672' });
 * await client.start(); // consumes threatlib.indicators
 * queue.processor.stats;
 * ```
 *
 * @throws {IntegrationError} when the options are invalid (the cause is a `ConfigurationError` naming each one).
 */
export function registerMessageQueue(client: ThreatClient, options?: MessageQueueOptions): MessageQueueIntegration {
  return client.registerIntegration('messageQueue', MessageQueueIntegration, options);
}
