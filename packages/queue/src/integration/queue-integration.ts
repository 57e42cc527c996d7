import {
  type Alert,
  ConfigurationError,
  type Integration,
  type IntegrationClass,
  type IntegrationContext,
  type IntegrationHealth,
  type ThreatClient,
} from '@threatlib/core';
import type { Subscription } from '../message/backend.js';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import type { MessageQueueOptions } from '../options/processor-options.js';
import { createIndicatorPipeline, type PipelineClient } from '../pipeline/indicator-pipeline.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The queue pipeline `registerMessageQueue` adds. */
    messageQueue: MessageQueueIntegration;
  }
}

const OPTIONS_PATH = 'integrations.messageQueue';

/**
 * The queue pipeline as a client integration: `start()` (run by `client.start()`) connects and consumes the incoming
 * queue or topic with {@link createIndicatorPipeline}; `stop()` drains the handlers still running and disconnects;
 * `sendAlert` publishes an alert to the alerts queue or topic.
 */
export class MessageQueueIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The processor behind the pipeline, for publishing or consuming more. */
  readonly processor: MessageQueueProcessor;
  readonly #client: PipelineClient;
  #subscription: Subscription | undefined;

  constructor(client: PipelineClient, options: MessageQueueOptions, context: IntegrationContext) {
    this.#client = client;
    const withBatching =
      options.type === 'kafka' && (options as { streamProcessing?: unknown }).streamProcessing === undefined
        ? { ...options, streamProcessing: context.client.config.enterprise.streamProcessing }
        : options;
    this.processor = new MessageQueueProcessor(withBatching, { logger: context.logger, optionsPath: OPTIONS_PATH });
  }

  async start(): Promise<void> {
    await this.processor.start();
    const incoming =
      this.processor.options.type === 'rabbitmq'
        ? this.processor.options.queues.incoming
        : this.processor.options.topics.incoming;
    this.#subscription = await this.processor.consume(incoming, createIndicatorPipeline(this.#client, this.processor));
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
 * The {@link MessageQueueIntegration} class bound to `client`, for `client.registerIntegration`. The pipeline scans
 * with the client it is given here: the integration context offers only configuration and alerts.
 */
export function createQueueIntegration(
  client: ThreatClient,
): IntegrationClass<MessageQueueOptions, MessageQueueIntegration> {
  return class BoundMessageQueueIntegration extends MessageQueueIntegration {
    constructor(options: MessageQueueOptions, context: IntegrationContext) {
      if (options === undefined || Object.keys(options as object).length === 0) {
        throw new ConfigurationError([
          {
            path: OPTIONS_PATH,
            message: 'not configured: set {type: "rabbitmq", connection, queues} or {type: "kafka", brokers, topics}',
          },
        ]);
      }
      super(client, options, context);
    }
  };
}

/**
 * Registers the queue pipeline on `client` as `messageQueue`, with `options` or else the client's
 * `integrations.messageQueue`; `client.start()` then starts consuming and `client.stop()` drains and disconnects.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: { messageQueue: { type: 'rabbitmq', connection: 'amqp://127.0.0.1:5672' } },
 * });
 * registerMessageQueue(client);
 * await client.start(); // consumes threatlib.indicators
 * client.integration('messageQueue')?.processor.stats;
 * ```
 *
 * @throws {IntegrationError} when the options are invalid (the cause is a `ConfigurationError` naming each one).
 */
export function registerMessageQueue(client: ThreatClient, options?: MessageQueueOptions): MessageQueueIntegration {
  return client.registerIntegration('messageQueue', createQueueIntegration(client), options);
}
