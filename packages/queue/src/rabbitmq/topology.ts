import type { Options } from 'amqplib';

/*
 * The queues behind one consumed queue Q: Q itself; `Q.dlq`, where a message goes after its last failed attempt
 * (or at once when no retry can fix it); and one `Q.retry.<ms>` per backoff delay. A retry queue has no consumer: a
 * message waits there for the queue's TTL and is then dead-lettered by the broker back to Q through the default
 * exchange. One queue per delay, because RabbitMQ expires messages only at the head of a queue: in a single retry
 * queue a long delay would hold back the short ones behind it. The delay is in the name, so changing the retry
 * options makes new queues rather than clashing with the arguments of existing ones.
 */

/** Arguments of a plain work queue: durable, so it survives a broker restart (its persistent messages with it). */
export function queueArguments(): Options.AssertQueue {
  return { durable: true };
}

/** The dead-letter queue of `source`. */
export function deadLetterQueue(source: string): string {
  return `${source}.dlq`;
}

/** The retry queue that holds messages of `source` for `delay` ms, then sends them back to `source`. */
export function retryQueue(source: string, delay: number): { name: string; arguments: Options.AssertQueue } {
  return {
    name: `${source}.retry.${delay}`,
    arguments: {
      durable: true,
      arguments: {
        'x-message-ttl': delay,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': source,
      },
    },
  };
}
