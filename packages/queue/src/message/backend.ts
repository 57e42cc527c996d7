import type { IntegrationHealth } from '@threatlib/core/integration';
import type { MessageHandler } from './queue-message.js';

/** Options of one publish. */
export interface PublishOptions {
  /** Kafka: the record key (decides the partition). RabbitMQ: ignored. */
  key?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** RabbitMQ: the `messageId` property. Kafka: ignored (a record is known by topic, partition and offset). */
  messageId?: string;
}

/** A running `consume`: cancel it to stop receiving (handlers already running finish). */
export interface Subscription {
  readonly source: string;
  cancel(): Promise<void>;
}

/** Counters of one processor since it was made. */
export interface QueueStats {
  /** Deliveries handed to a handler (retries included). */
  delivered: number;
  /** Messages whose handler resolved and that were acknowledged or committed. */
  completed: number;
  /** Failed deliveries scheduled for another attempt. */
  retried: number;
  /** Messages moved to a `.dlq`. */
  deadLettered: number;
  /** Messages the broker confirmed to `publish` or `produce`. */
  published: number;
  /** Connections re-established after a loss. */
  reconnections: number;
}

/** What a broker back end does; `MessageQueueProcessor` puts one API over both. */
export interface QueueBackend {
  readonly broker: 'rabbitmq' | 'kafka';
  readonly stats: QueueStats;
  start(): Promise<void>;
  publish(destination: string, body: Buffer, options: PublishOptions): Promise<void>;
  consume(source: string, handler: MessageHandler): Promise<Subscription>;
  stop(): Promise<void>;
  health(): IntegrationHealth;
}

/** Fresh counters. */
export function emptyStats(): QueueStats {
  return { delivered: 0, completed: 0, retried: 0, deadLettered: 0, published: 0, reconnections: 0 };
}
