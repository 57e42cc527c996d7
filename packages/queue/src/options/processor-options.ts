import { ConfigurationError, type ConfigurationIssue } from '@threatlib/core';
import { durationSchema } from '@threatlib/core/integration';
import { z } from 'zod';

/*
 * The options of `new MessageQueueProcessor(...)`, one strict schema per broker. Defaults live here. They are also
 * what `integrations.messageQueue` holds in the client's configuration (core only checks `type`).
 */

const positiveInt = z.int().positive();
const milliseconds = z.int().nonnegative();
const queueName = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(200, { error: 'at most 200 characters (".retry.<ms>" and ".dlq" are added to it)' });
const topicName = z.string().regex(/^[a-zA-Z0-9._-]{1,200}$/, {
  error: 'expected a Kafka topic name: letters, digits, ".", "_" or "-", at most 200 (".dlq" is added to it)',
});

/** How a failing handler is retried before its message is dead-lettered. */
const retryShape = {
  /** Handler attempts per message, the first included; after the last failure the message goes to `<queue>.dlq`. */
  maxAttempts: z.int().min(1).max(100).default(5),
  /** Delay before the second attempt, in ms; each later one waits `backoffMultiplier` times longer. */
  retryDelay: milliseconds.default(1000),
  backoffMultiplier: z.number().min(1).default(2),
  /** Longest delay between two attempts, in ms. */
  maxRetryDelay: positiveInt.default(60_000),
  /** Longest `stop()` waits for handlers still running before it closes the connection anyway, in ms. */
  drainTimeout: positiveInt.default(30_000),
};

const reconnectSchema = z.strictObject({
  /** Delay before the first reconnection attempt, in ms. */
  initialDelay: positiveInt.default(100),
  /** Longest delay between two attempts, in ms. */
  maxDelay: positiveInt.default(10_000),
  multiplier: z.number().min(1).default(2),
});

const rabbitmqSchema = z.strictObject({
  type: z.literal('rabbitmq'),
  /** An AMQP URL: `amqp://user:password@host:5672/vhost` (or `amqps://`). */
  connection: z
    .string({ error: 'expected an AMQP URL such as "amqp://guest:guest@127.0.0.1:5672"' })
    .refine((url) => /^amqps?:\/\/[^/]/.test(url), {
      error: 'expected an AMQP URL such as "amqp://guest:guest@127.0.0.1:5672" (amqp:// or amqps://)',
    })
    .default('amqp://127.0.0.1:5672'),
  queues: z
    .strictObject({
      /** Where the pipeline reads `{indicator, type}` messages from. */
      incoming: queueName.default('threatlib.indicators'),
      /** Where the pipeline writes `{indicator, results, processedAt}`. */
      processed: queueName.default('threatlib.processed'),
      /** Where the pipeline writes threats, and `sendAlert` writes alerts. */
      alerts: queueName.default('threatlib.alerts'),
    })
    .prefault({}),
  /** Messages a consumer holds unacknowledged at once; that many handlers run concurrently. */
  prefetch: z.int().min(1).max(65_535).default(20),
  /**
   * Longest `publish` waits for the broker's confirmation, a reconnection included, in ms: 100 to 3 600 000 (less is
   * seconds given for milliseconds, refused with what was meant).
   */
  publishTimeout: durationSchema({
    name: 'publishTimeout',
    unit: 'milliseconds',
    min: 100,
    max: 3_600_000,
    integer: true,
  }).default(30_000),
  /** AMQP heartbeat in seconds, 1 to 600: how fast a silently dead connection is noticed (ms are refused). */
  heartbeat: durationSchema({ name: 'heartbeat', unit: 'seconds', min: 1, max: 600, integer: true }).default(10),
  reconnect: reconnectSchema.prefault({}),
  ...retryShape,
});

const brokerAddress = z.string().regex(/^[^\s:/]+:\d{1,5}$/, { error: 'expected "host:port"' });
const batchingSchema = z.strictObject({
  /**
   * Whether `produce` waits up to `flushInterval` to fill a batch. Off, a batch leaves as soon as the previous one
   * was acknowledged, with whatever was produced meanwhile (at most `batchSize`).
   */
  enabled: z.boolean().default(false),
  /** Records per produce request at most. */
  batchSize: positiveInt.default(100),
  /** Longest a record waits for its batch to fill, in ms (only when `enabled`). */
  flushInterval: positiveInt.default(1000),
});

const kafkaSchema = z.strictObject({
  type: z.literal('kafka'),
  brokers: z.array(brokerAddress, { error: 'expected the brokers as ["host:port", ...]' }).min(1, {
    error: 'list at least one broker as "host:port"',
  }),
  clientId: z.string().min(1).default('threatlib'),
  /** The consumer group every `consume` joins (offsets are committed per group). */
  groupId: z.string().min(1).default('threatlib'),
  topics: z
    .strictObject({
      /** Where the pipeline reads `{indicator, type}` records from. */
      incoming: topicName.default('threatlib.indicators'),
      /** Where the pipeline writes `{indicator, results, processedAt}`. */
      processed: topicName.default('threatlib.processed'),
      /** Where the pipeline produces threats as `{indicator, threatLevel, sources, timestamp}`. */
      threats: topicName.default('threatlib.threats'),
      /** Where `sendAlert` writes alerts. */
      alerts: topicName.default('threatlib.alerts'),
    })
    .prefault({}),
  /** Records of one partition handled concurrently; offsets are committed only up to the first unfinished one. */
  prefetch: z.int().min(1).max(10_000).default(20),
  /** Batching of `produce` (the client's `enterprise.streamProcessing` when registered as an integration). */
  streamProcessing: batchingSchema.prefault({}),
  /**
   * How long the group waits for a consumer that stopped heartbeating (a killed process) before its partitions go
   * to another, in ms, 1,000 to 3,600,000 (less is seconds given for milliseconds). The broker allows 6,000 to 300,000
   * by default.
   */
  sessionTimeout: durationSchema({
    name: 'sessionTimeout',
    unit: 'milliseconds',
    min: 1_000,
    max: 3_600_000,
    integer: true,
  }).default(10_000),
  ...retryShape,
});

const processorSchema = z.discriminatedUnion('type', [rabbitmqSchema, kafkaSchema], {
  error: 'expected type "rabbitmq" or "kafka"',
});

/** Options of a RabbitMQ processor, as users write them. */
export type RabbitMqOptions = z.input<typeof rabbitmqSchema>;
/** Options of a Kafka processor, as users write them. `connection: {brokers}` is accepted for `brokers`. */
export type KafkaOptions = z.input<typeof kafkaSchema> | (Omit<z.input<typeof kafkaSchema>, 'brokers'> & KafkaAlias);
/** Options of `new MessageQueueProcessor(...)`, as users write them. */
export type MessageQueueOptions = RabbitMqOptions | KafkaOptions;
/** RabbitMQ options with every default filled in. */
export type ResolvedRabbitMqOptions = z.output<typeof rabbitmqSchema>;
/** Kafka options with every default filled in. */
export type ResolvedKafkaOptions = z.output<typeof kafkaSchema>;
/** Processor options with every default filled in. */
export type ResolvedQueueOptions = ResolvedRabbitMqOptions | ResolvedKafkaOptions;
/** The retry and drain options both brokers share. */
export type RetryOptions = Pick<
  ResolvedQueueOptions,
  'maxAttempts' | 'retryDelay' | 'backoffMultiplier' | 'maxRetryDelay' | 'drainTimeout'
>;

interface KafkaAlias {
  /** The shape the client's configuration examples use: `{type: 'kafka', connection: {brokers}}`. */
  connection: { brokers: string[] };
}

/**
 * Validates processor options and fills in the defaults.
 *
 * @param where prefixes every path in the error (`integrations.messageQueue`).
 * @throws {ConfigurationError} `Configuration invalid: <where>.<path>: <reason>; ...` naming every problem.
 */
export function parseProcessorOptions(input: unknown, where = ''): ResolvedQueueOptions {
  const result = processorSchema.safeParse(moveKafkaConnection(input));
  if (result.success) return result.data;
  const issues: ConfigurationIssue[] = [];
  for (const issue of result.error.issues) {
    const path = [where, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: path ? `${path}.${key}` : key, message: 'unknown option' });
    } else {
      issues.push({ path: path || '(root)', message: issue.message });
    }
  }
  throw new ConfigurationError(issues);
}

function moveKafkaConnection(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  if (record.type !== 'kafka' || record.connection === undefined) return input;
  const { connection, ...rest } = record;
  const brokers = (connection as { brokers?: unknown } | null)?.brokers;
  if (rest.brokers === undefined && brokers !== undefined) return { ...rest, brokers };
  return input;
}
