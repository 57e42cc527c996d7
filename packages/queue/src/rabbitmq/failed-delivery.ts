// What the RabbitMQ back end does with a message whose handler failed: to its retry queue (with the next attempt's
// number) or its dead-letter queue (with why), confirmed before the original is acknowledged.
import type { Logger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import type { QueueStats } from '../message/backend.js';
import { deadLetterHeaders, HEADERS } from '../message/headers.js';
import type { ResolvedRabbitMqOptions } from '../options/processor-options.js';
import { afterFailure } from '../retry/retry-policy.js';
import { ack, confirmedSend, withoutDeathHistory } from './amqp-channel.js';
import { deadLetterQueue, retryQueue } from './topology.js';

/** What moving a failed message needs of the back end. */
interface FailureContext {
  options: ResolvedRabbitMqOptions;
  stats: QueueStats;
  logger: Logger;
  clock: Clock;
}

/**
 * Moves a message whose handler failed to its retry or dead-letter queue, then acknowledges it; when it cannot be
 * moved, it is left to the broker (requeued, or redelivered after the reconnection): never lost.
 */
export async function moveFailedMessage(
  backend: FailureContext,
  consumer: { source: string },
  channel: ConfirmChannel,
  delivery: ConsumeMessage,
  error: unknown,
  attempt: number,
): Promise<void> {
  const decision = afterFailure(error, attempt, backend.options);
  const original = delivery.properties.headers ?? {};
  const properties: Options.Publish = {
    persistent: true,
    ...(delivery.properties.contentType ? { contentType: delivery.properties.contentType } : {}),
    ...(delivery.properties.messageId ? { messageId: delivery.properties.messageId } : {}),
  };
  try {
    if (decision.action === 'retry') {
      await confirmedSend(channel, retryQueue(consumer.source, decision.delay).name, delivery.content, {
        ...properties,
        headers: { ...withoutDeathHistory(original), [HEADERS.attempt]: decision.next },
      });
      backend.stats.retried += 1;
      backend.logger.debug(
        { queue: consumer.source, attempt, delay: decision.delay, err: error },
        'handler failed; message scheduled for another attempt',
      );
    } else {
      await confirmedSend(channel, deadLetterQueue(consumer.source), delivery.content, {
        ...properties,
        headers: {
          ...withoutDeathHistory(original),
          ...deadLetterHeaders(error, decision.reason, consumer.source, attempt, backend.clock.now()),
        },
      });
      backend.stats.deadLettered += 1;
      backend.logger.warn(
        { queue: consumer.source, attempts: attempt, reason: decision.reason, err: error },
        `message dead-lettered to ${deadLetterQueue(consumer.source)}`,
      );
    }
  } catch (moveError) {
    // Not moved: leave it to the broker. On a live channel it is requeued now; on a dead one it is redelivered
    // after the reconnection. Either way it is not lost.
    backend.logger.warn({ queue: consumer.source, err: moveError }, 'could not move a failed message; requeueing it');
    try {
      channel.nack(delivery, false, true);
    } catch {
      // The channel is gone; the broker requeues every unacknowledged message of a closed channel.
    }
    return;
  }
  ack(channel, delivery);
}
