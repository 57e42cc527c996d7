import { connect } from 'amqplib';
import kafkajs from 'kafkajs';
import { retryDelayBefore } from '../retry/retry-policy.js';
import { E2E_KAFKA_BROKERS, E2E_RABBITMQ_URL } from './brokers.js';

/** Deletes test queues with the retry queues the suite's options make; a queue that is not there is no error. */
export async function deleteRabbitQueues(names: string[]): Promise<void> {
  if (names.length === 0) return;
  const delays = new Set<number>();
  for (const retryDelay of [10, 20, 50]) {
    for (let next = 2; next <= 5; next += 1) {
      delays.add(
        retryDelayBefore(next, {
          retryDelay,
          backoffMultiplier: 2,
          maxRetryDelay: 60_000,
          maxAttempts: 5,
          drainTimeout: 1,
        }),
      );
    }
  }
  const connection = await connect(E2E_RABBITMQ_URL);
  try {
    for (const name of names) {
      for (const queue of [name, `${name}.dlq`, ...[...delays].map((d) => `${name}.retry.${d}`)]) {
        const channel = await connection.createChannel();
        channel.on('error', () => undefined);
        await channel.deleteQueue(queue).catch(() => undefined);
        await channel.close().catch(() => undefined);
      }
    }
  } finally {
    await connection.close();
  }
}

/** Deletes test topics and their `.dlq`; a topic that is not there is no error. */
export async function deleteKafkaTopics(names: string[]): Promise<void> {
  if (names.length === 0) return;
  const admin = new kafkajs.Kafka({ brokers: E2E_KAFKA_BROKERS, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const topics = names.flatMap((n) => [n, `${n}.dlq`]).filter((t) => existing.has(t));
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
}
