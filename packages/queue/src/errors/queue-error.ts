import { ThreatlibError } from '@threatlib/core';

/** What the processor was doing when it failed. */
export type QueueOperation = 'connect' | 'publish' | 'produce' | 'consume' | 'stop';

/**
 * Thrown when a broker operation fails: a publish the broker did not confirm, a connection that could not be made,
 * an operation on a stopped processor. Names the broker, the operation and the queue or topic.
 */
export class QueueError extends ThreatlibError {
  /** `rabbitmq` or `kafka`. */
  readonly broker: 'rabbitmq' | 'kafka';
  readonly operation: QueueOperation;
  /** The queue or topic, when the operation had one. */
  readonly destination: string | undefined;
  /** Whether trying the same operation again later may succeed (a lost connection) or not (a stopped processor). */
  readonly isRetryable: boolean;

  constructor(
    broker: 'rabbitmq' | 'kafka',
    operation: QueueOperation,
    message: string,
    options: { destination?: string; isRetryable?: boolean; cause?: unknown } = {},
  ) {
    super('QUEUE_FAILED', message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'QueueError';
    this.broker = broker;
    this.operation = operation;
    this.destination = options.destination;
    this.isRetryable = options.isRetryable ?? true;
  }

  /** Whether `error` is a {@link QueueError}, from any copy of the package. */
  static override isInstance(error: unknown): error is QueueError {
    return ThreatlibError.hasCode(error, 'QUEUE_FAILED');
  }
}
