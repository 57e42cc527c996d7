import type { Logger } from '@threatlib/core';
import { type Clock, type IntegrationHealth, setOwn } from '@threatlib/core/integration';
import kafkajs, { type Admin, type Consumer, type EachBatchPayload, type KafkaMessage, type Producer } from 'kafkajs';
import { QueueError } from '../errors/queue-error.js';
import {
  emptyStats,
  type PublishOptions,
  type QueueBackend,
  type QueueStats,
  type Subscription,
} from '../message/backend.js';
import { deadLetterHeaders, HEADERS, headerText } from '../message/headers.js';
import { InFlight } from '../message/in-flight.js';
import { createQueueMessage, type MessageHandler, type QueueMessage } from '../message/queue-message.js';
import type { ResolvedKafkaOptions } from '../options/processor-options.js';
import { afterFailure } from '../retry/retry-policy.js';
import { type PendingRecord, ProduceBatcher } from './produce-batcher.js';
import { correctRequestQueueScheduling } from './request-queue-schedule.js';

const { Kafka, logLevel, Partitioners } = kafkajs;

interface RunningConsumer {
  topic: string;
  consumer: Consumer;
}

/**
 * Kafka on kafkajs. An idempotent producer (acks from all in-sync replicas, one request in flight) fed by a
 * {@link ProduceBatcher}. Each consumed topic has a consumer of its own in the group `<groupId>.<topic>`, started from
 * the earliest offset when the group is new. Records of a partition are handled up to `prefetch` at a time, and the
 * committed offset only ever moves past records whose handler finished (or whose record went to the `.dlq`): a
 * consumer killed mid-batch leaves its unfinished records to the next one. A failing handler is retried in place
 * with the same backoff as RabbitMQ, the partition's commit point waiting for it; after the last attempt the record
 * goes to `<topic>.dlq` with the error in its headers.
 */
export class KafkaBackend implements QueueBackend {
  readonly broker = 'kafka' as const;
  readonly stats: QueueStats = emptyStats();
  readonly #options: ResolvedKafkaOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #kafka: InstanceType<typeof Kafka>;
  readonly #producer: Producer;
  readonly #batcher: ProduceBatcher;
  readonly #consumers = new Set<RunningConsumer>();
  readonly #inFlight = new InFlight();
  readonly #createdTopics = new Set<string>();
  /** Batches being handled: `stop()` lets them commit what finished before the consumers disconnect. */
  readonly #batches = new Set<Promise<void>>();
  /** Wakes handlers waiting out a retry delay when the processor stops. */
  readonly #sleepers = new Set<() => void>();
  #starting: Promise<void> | undefined;
  #connected = false;
  #stopping = false;
  /** Resolved when `stop()` gives up on handlers still running at the drain deadline. */
  readonly #abandon = abandonSignal();
  #closed = false;
  #lastError: string | undefined;

  constructor(options: ResolvedKafkaOptions, logger: Logger, clock: Clock) {
    this.#options = options;
    this.#logger = logger;
    this.#clock = clock;
    // kafkajs 2.2.4 makes negative timers while idle (TimeoutNegativeWarning on Node.js 24): see the file.
    correctRequestQueueScheduling();
    this.#kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => {
        const { message, ...extra } = entry.log;
        this.#lastError = entry.level <= logLevel.WARN ? message : this.#lastError;
        this.#logger.debug({ kafka: entry.namespace, ...extra }, message);
      },
      retry: { initialRetryTime: 100, retries: 8 },
    });
    this.#producer = this.#kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.#batcher = new ProduceBatcher((records) => this.#sendBatch(records), options.streamProcessing, clock);
  }

  start(): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError('connect'));
    this.#starting ??= this.#producer.connect().then(
      () => {
        this.#connected = true;
      },
      (error: unknown) => {
        this.#starting = undefined;
        throw new QueueError(
          'kafka',
          'connect',
          `Cannot connect to Kafka at ${this.#options.brokers.join(', ')}: ${message(error)}`,
          { cause: error },
        );
      },
    );
    return this.#starting;
  }

  async publish(destination: string, body: Buffer, options: PublishOptions): Promise<void> {
    if (this.#closed) throw this.#closedError('produce', destination);
    await this.start();
    try {
      await this.#batcher.add({ topic: destination, key: options.key, value: body, headers: options.headers ?? {} });
    } catch (error) {
      throw new QueueError(
        'kafka',
        'produce',
        `Kafka did not acknowledge a record to "${destination}": ${message(error)}`,
        {
          destination,
          cause: error,
        },
      );
    }
    this.stats.published += 1;
  }

  async consume(source: string, handler: MessageHandler): Promise<Subscription> {
    if (this.#closed || this.#stopping) throw this.#closedError('consume', source);
    await this.start();
    const consumer = this.#kafka.consumer({
      groupId: `${this.#options.groupId}.${source}`,
      sessionTimeout: this.#options.sessionTimeout,
      heartbeatInterval: Math.max(100, Math.floor(this.#options.sessionTimeout / 10)),
      rebalanceTimeout: Math.max(this.#options.sessionTimeout, 10_000),
      allowAutoTopicCreation: true,
      maxWaitTimeInMs: 250,
      retry: { initialRetryTime: 100, retries: 1_000_000 },
    });
    const running: RunningConsumer = { topic: source, consumer };
    try {
      await this.#createTopics([source, `${source}.dlq`]);
      await consumer.connect();
      await consumer.subscribe({ topics: [source], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 4,
        eachBatch: (payload) => {
          const running = this.#eachBatch(consumer, handler, payload);
          this.#batches.add(running);
          return running.finally(() => this.#batches.delete(running));
        },
      });
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw new QueueError('kafka', 'consume', `Cannot consume from "${source}": ${message(error)}`, {
        destination: source,
        cause: error,
      });
    }
    this.#consumers.add(running);
    return {
      source,
      cancel: async () => {
        if (!this.#consumers.delete(running)) return;
        await consumer.disconnect().catch(() => undefined);
      },
    };
  }

  async stop(): Promise<void> {
    if (this.#closed) return;
    this.#stopping = true;
    for (const wake of this.#sleepers) wake();
    const drained = await this.#inFlight.drain(this.#options.drainTimeout, this.#clock);
    if (!drained) {
      this.#logger.warn(
        { handlers: this.#inFlight.count, drainTimeout: this.#options.drainTimeout },
        'Kafka handlers still running at the drain deadline; their offsets stay uncommitted and the records will be consumed again',
      );
    }
    this.#abandon.resolve();
    await Promise.allSettled([...this.#batches]);
    await Promise.all([...this.#consumers].map(({ consumer }) => consumer.disconnect().catch(() => undefined)));
    this.#consumers.clear();
    await this.#batcher.flush();
    this.#closed = true;
    await this.#starting?.catch(() => undefined);
    await this.#producer.disconnect().catch(() => undefined);
    this.#connected = false;
  }

  health(): IntegrationHealth {
    return {
      healthy: this.#connected && !this.#closed,
      detail: this.#closed
        ? 'stopped'
        : this.#connected
          ? `connected to ${this.#options.brokers.join(', ')}`
          : `not connected to ${this.#options.brokers.join(', ')}${this.#lastError ? ` (${this.#lastError})` : ''}`,
      consumers: this.#consumers.size,
      inFlight: this.#inFlight.count,
      buffered: this.#batcher.pending,
      ...this.stats,
    };
  }

  #closedError(operation: 'connect' | 'produce' | 'consume', destination?: string): QueueError {
    return new QueueError('kafka', operation, 'The Kafka processor is stopped', {
      ...(destination ? { destination } : {}),
      isRetryable: false,
    });
  }

  async #sendBatch(records: PendingRecord[]): Promise<void> {
    const byTopic = new Map<string, PendingRecord[]>();
    for (const record of records) {
      const list = byTopic.get(record.topic) ?? [];
      list.push(record);
      byTopic.set(record.topic, list);
    }
    await this.#producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({
        topic,
        messages: list.map((record) => ({
          key: record.key ?? null,
          value: record.value,
          headers: record.headers,
        })),
      })),
    });
  }

  /** Creates topics up front so a new consumer group finds partitions to be assigned. Existing ones are kept. */
  async #createTopics(topics: string[]): Promise<void> {
    const missing = topics.filter((t) => !this.#createdTopics.has(t));
    if (missing.length === 0) return;
    const admin: Admin = this.#kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const toCreate = missing.filter((t) => !existing.has(t));
      if (toCreate.length > 0) {
        await admin.createTopics({ waitForLeaders: true, topics: toCreate.map((topic) => ({ topic })) });
      }
      for (const topic of missing) this.#createdTopics.add(topic);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async #eachBatch(consumer: Consumer, handler: MessageHandler, payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const messages = batch.messages;
    if (messages.length === 0 || this.#stopping) return;
    const done = new Array<boolean>(messages.length).fill(false);
    let prefix = 0;
    let committed = 0;
    let commitChain: Promise<void> = Promise.resolve();
    /** Set once this call returned: a handler finishing later (after a drain timeout) must not commit. */
    let returned = false;
    const commit = () => {
      if (prefix === committed) return commitChain;
      const upTo = prefix;
      committed = upTo;
      const last = messages[upTo - 1];
      if (!last) return commitChain;
      commitChain = commitChain.then(() =>
        consumer
          .commitOffsets([
            { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
          ])
          .catch((error: unknown) => {
            // An uncommitted offset means the records are consumed again (at least once), not lost.
            this.#logger.warn(
              { topic: batch.topic, partition: batch.partition, err: error },
              'Kafka offset commit failed',
            );
          }),
      );
      return commitChain;
    };
    const active = new Set<Promise<void>>();
    const keepGoing = () => !this.#stopping && isRunning() && !isStale();
    for (let index = 0; index < messages.length; index += 1) {
      if (!keepGoing()) break;
      const record = messages[index] as KafkaMessage;
      // The bookkeeping runs inside the tracked work, so `stop()` sees a finished record as done before it drains.
      const task = this.#inFlight.track(async () => {
        const finished = await this.#handle(handler, batch.topic, batch.partition, record, isRunning);
        if (!finished || returned) return;
        done[index] = true;
        while (prefix < messages.length && done[prefix]) prefix += 1;
        const last = messages[prefix - 1];
        if (last && prefix > committed) resolveOffset(last.offset);
        if (prefix - committed >= 200) void commit();
      });
      active.add(task);
      void task.finally(() => active.delete(task));
      if (active.size >= this.#options.prefetch) await Promise.race([...active, this.#abandon.promise]);
      try {
        await heartbeat();
      } catch {
        // A rebalance started: finish what runs, commit what finished, and let the next owner take the rest.
        break;
      }
    }
    await Promise.race([Promise.all(active), this.#abandon.promise]);
    await commit();
    returned = true;
  }

  /** Handles one record, with retries; resolves true once it is done with (handled or dead-lettered). */
  async #handle(
    handler: MessageHandler,
    topic: string,
    partition: number,
    record: KafkaMessage,
    isRunning: () => boolean,
  ): Promise<boolean> {
    const headers = textHeaders(record.headers);
    const content = record.value ?? Buffer.alloc(0);
    const key = record.key ? record.key.toString('utf8') : undefined;
    for (let attempt = 1; ; attempt += 1) {
      const message: QueueMessage = createQueueMessage({
        source: topic,
        raw: content,
        headers: { ...headers, [HEADERS.attempt]: String(attempt) },
        attempt,
        id: `${topic}:${partition}:${record.offset}`,
        key,
      });
      this.stats.delivered += 1;
      try {
        await handler(message);
        this.stats.completed += 1;
        return true;
      } catch (error) {
        const decision = afterFailure(error, attempt, this.#options);
        if (decision.action === 'retry') {
          this.stats.retried += 1;
          await this.#sleep(decision.delay);
          if (this.#stopping || !isRunning()) return false;
          continue;
        }
        try {
          await this.publish(`${topic}.dlq`, content, {
            ...(key ? { key } : {}),
            headers: { ...headers, ...deadLetterHeaders(error, decision.reason, topic, attempt, this.#clock.now()) },
          });
        } catch (dlqError) {
          this.#logger.error(
            { topic, partition, offset: record.offset, err: dlqError },
            'could not dead-letter a record; its offset stays uncommitted',
          );
          return false;
        }
        this.stats.deadLettered += 1;
        this.#logger.warn(
          { topic, partition, offset: record.offset, attempts: attempt, reason: decision.reason, err: error },
          `record dead-lettered to ${topic}.dlq`,
        );
        return true;
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#sleepers.delete(wake);
        this.#clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.#clock.setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }
}

function abandonSignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function textHeaders(headers: KafkaMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const single = Array.isArray(value) ? value[value.length - 1] : value;
    const text = headerText(single);
    // Own, whatever the name: a header named "__proto__" assigned would be lost (and not passed on to a retry).
    if (text !== undefined) setOwn(out, name, text);
  }
  return out;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
