// The queues declared on the current RabbitMQ connection: each declared once per connection, concurrent callers
// sharing one declaration.
import type { ChannelModel, Options } from 'amqplib';
import { queueArguments } from './topology.js';

/** The queues declared, and being declared, on the current connection. */
export class QueueDeclarations {
  /** Queues declared on the current connection (declaring is idempotent but costs a round trip). */
  #declared = new Set<string>();
  /** Declarations under way on the current connection, by queue name. */
  #declaring = new Map<string, Promise<void>>();
  readonly #current: () => ChannelModel | undefined;

  /** `current` gives the connection in use now: a declaration counts only while its connection is current. */
  constructor(current: () => ChannelModel | undefined) {
    this.#current = current;
  }

  /** Whether `queue` was declared on the current connection. */
  has(queue: string): boolean {
    return this.#declared.has(queue);
  }

  /** Forgets every declaration: a new connection declares again. */
  reset(): void {
    this.#declared = new Set();
    this.#declaring = new Map();
  }

  /**
   * Declares queues on a channel of its own, so a refused declaration closes only that channel. Concurrent callers
   * share one declaration per queue and connection.
   */
  async declare(connection: ChannelModel, queues: Array<string | { name: string; arguments: Options.AssertQueue }>) {
    const missing = queues.filter((q) => !this.#declared.has(typeof q === 'string' ? q : q.name));
    if (missing.length === 0) return;
    const declaring = this.#declaring;
    const fresh = missing.filter((q) => !declaring.has(typeof q === 'string' ? q : q.name));
    if (fresh.length > 0) {
      const work = this.#assertQueues(connection, fresh);
      for (const queue of fresh) {
        const name = typeof queue === 'string' ? queue : queue.name;
        declaring.set(name, work);
        work.then(
          () => {
            if (this.#current() === connection) this.#declared.add(name);
            declaring.delete(name);
          },
          () => declaring.delete(name),
        );
      }
    }
    await Promise.all(missing.map((q) => declaring.get(typeof q === 'string' ? q : q.name)));
  }

  async #assertQueues(
    connection: ChannelModel,
    queues: Array<string | { name: string; arguments: Options.AssertQueue }>,
  ): Promise<void> {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    try {
      for (const queue of queues) {
        if (typeof queue === 'string') await channel.assertQueue(queue, queueArguments());
        else await channel.assertQueue(queue.name, queue.arguments);
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
}
