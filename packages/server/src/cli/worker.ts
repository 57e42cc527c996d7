import { IntegrationError, type ThreatClient } from '@threatlib/core';

/** What `threatlib worker` needs from the CLI around it. */
export interface WorkerIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopSignal?: Promise<void>;
}

/** How `threatlib worker` ended. */
export type WorkerOutcome = 'stopped' | 'not-configured' | 'unavailable';

/**
 * `threatlib worker`: starts `client`, whose `integrations.messageQueue` consumes scan requests (RabbitMQ competing
 * consumers, or a Kafka consumer group: start as many workers as you like), and runs until asked to stop; then stops
 * consuming, lets the messages under way finish (the queue's `drainTimeout`) and closes. A worker that dies instead
 * loses nothing: its unacknowledged messages (uncommitted offsets) go to another worker. With `cluster.enabled`,
 * every worker shares each feed's quota, its lookups, the verdict cache and the breakers through Redis, so a message
 * redelivered after a crash whose answer is cached is not asked of the feed again.
 */
export async function runWorker(client: ThreatClient, io: WorkerIo): Promise<WorkerOutcome> {
  const queue = client.config.integrations.messageQueue as
    | { type: string; queues?: { incoming?: string }; topics?: { incoming?: string } }
    | undefined;
  if (!queue) {
    io.err(
      'threatlib worker needs integrations.messageQueue in the configuration: {type: "rabbitmq", connection, queues} or {type: "kafka", brokers, topics}\n',
    );
    return 'not-configured';
  }
  const { cluster } = client.config;
  if (!cluster.enabled) {
    io.err(
      'threatlib worker: cluster is off, so this worker keeps its own quotas and cache; with several workers, set cluster.enabled and cluster.kvserver\n',
    );
  }
  try {
    await client.start();
  } catch (error) {
    if (!IntegrationError.isInstance(error)) throw error;
    io.err(`threatlib worker could not start: ${error.message}\n`);
    return 'unavailable';
  }
  const incoming = queue.queues?.incoming ?? queue.topics?.incoming ?? 'threatlib.indicators';
  const sharing = cluster.enabled
    ? `shared through Redis at ${cluster.kvserver.host}:${cluster.kvserver.port} (prefix ${cluster.kvserver.keyPrefix})`
    : 'not shared';
  io.out(`threatlib worker consuming ${queue.type} ${incoming}; quotas, lookups and cache ${sharing}\n`);
  await (io.stopSignal ?? new Promise<void>(() => {}));
  await client.stop();
  return 'stopped';
}
