import type { Logger } from '@threatlib/core';
import { type Clock, type IntegrationHealth, setOwn } from '@threatlib/core/integration';
import { type ChannelModel, type ConfirmChannel, type ConsumeMessage, connect, type Options } from 'amqplib';
import { QueueError } from '../errors/queue-error.js';
import {
  emptyStats,
  type PublishOptions,
  type QueueBackend,
  type QueueStats,
  type Subscription,
} from '../message/backend.js';
import { attemptOf, deadLetterHeaders, HEADERS, headerText } from '../message/headers.js';
import { InFlight } from '../message/in-flight.js';
import { createQueueMessage, type MessageHandler } from '../message/queue-message.js';
import type { ResolvedRabbitMqOptions } from '../options/processor-options.js';
import { afterFailure, retryDelayBefore } from '../retry/retry-policy.js';
import { deadLetterQueue, queueArguments, retryQueue } from './topology.js';

interface Consumer {
  source: string;
  handler: MessageHandler;
  /** The channel it consumes on now; undefined while it waits for a connection. */
  channel: ConfirmChannel | undefined;
  consumerTag: string | undefined;
  cancelled: boolean;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * RabbitMQ on amqplib. One connection; a confirm channel for `publish`; a confirm channel per consumer, on which the
 * consumer also moves failed messages to their retry or dead-letter queue before acknowledging them (so a message is
 * acknowledged only once it is safely somewhere else). When the connection or a channel is lost it reconnects with
 * backoff and consumes again; unacknowledged messages are redelivered by the broker, so nothing is lost (a message
 * whose handler had finished but whose ack was lost is handled twice: delivery is at least once).
 */
export class RabbitMqBackend implements QueueBackend {
  readonly broker = 'rabbitmq' as const;
  readonly stats: QueueStats = emptyStats();
  readonly #options: ResolvedRabbitMqOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #consumers = new Set<Consumer>();
  readonly #inFlight = new InFlight();
  #connection: ChannelModel | undefined;
  #publisher: ConfirmChannel | undefined;
  /** Queues declared on the current connection (declaring is idempotent but costs a round trip). */
  #declared = new Set<string>();
  /** Declarations under way on the current connection, by queue name. */
  #declaring = new Map<string, Promise<void>>();
  #ready: Deferred = deferred();
  #connecting: Promise<void> | undefined;
  #reconnectTimer: unknown;
  #reconnectAttempt = 0;
  #started = false;
  /** `stop()` was called: consumers are cancelled, publishing still works until the drain ends. */
  #stopping = false;
  #closed = false;
  #lastError: string | undefined;

  constructor(options: ResolvedRabbitMqOptions, logger: Logger, clock: Clock) {
    this.#options = options;
    this.#logger = logger;
    this.#clock = clock;
  }

  async start(): Promise<void> {
    if (this.#closed) throw this.#closedError('connect');
    if (this.#started) return this.#ready.promise;
    this.#started = true;
    try {
      await this.#connect();
    } catch (error) {
      this.#started = false;
      throw new QueueError('rabbitmq', 'connect', `Cannot connect to RabbitMQ at ${this.#where()}: ${message(error)}`, {
        cause: error,
      });
    }
  }

  async publish(destination: string, body: Buffer, options: PublishOptions): Promise<void> {
    if (this.#closed) throw this.#closedError('publish', destination);
    if (!this.#started) await this.start();
    const deadline = this.#clock.now() + this.#options.publishTimeout;
    for (;;) {
      // The common case (connected, queue declared) goes straight to the send.
      if (!this.#connection || !this.#publisher) await this.#whenConnected(deadline, destination);
      const publisher = this.#publisher;
      const connection = this.#connection;
      if (!publisher || !connection) continue;
      try {
        if (!this.#declared.has(destination)) await this.#declare(connection, [destination]);
      } catch (error) {
        if (this.#connection === connection) {
          throw new QueueError('rabbitmq', 'publish', `Cannot declare queue "${destination}": ${message(error)}`, {
            destination,
            isRetryable: false,
            cause: error,
          });
        }
        continue;
      }
      try {
        await confirmedSend(publisher, destination, body, {
          persistent: true,
          contentType: 'application/json',
          timestamp: Math.floor(this.#clock.now() / 1000),
          ...(options.messageId ? { messageId: options.messageId } : {}),
          ...(options.headers ? { headers: options.headers } : {}),
        });
        this.stats.published += 1;
        return;
      } catch (error) {
        // A send the broker did not confirm is sent again (once reconnected) until the deadline: the caller is told
        // "published" only when the broker has it. The worst case is a duplicate, never a loss.
        if (this.#closed || this.#clock.now() >= deadline) {
          throw new QueueError(
            'rabbitmq',
            'publish',
            `RabbitMQ did not confirm a message to "${destination}": ${message(error)}`,
            { destination, cause: error },
          );
        }
        this.#logger.debug({ queue: destination, err: error }, 'publish not confirmed; sending again');
        await this.#pause(50);
      }
    }
  }

  async consume(source: string, handler: MessageHandler): Promise<Subscription> {
    if (this.#closed || this.#stopping) throw this.#closedError('consume', source);
    await this.start();
    const consumer: Consumer = { source, handler, channel: undefined, consumerTag: undefined, cancelled: false };
    this.#consumers.add(consumer);
    const connection = this.#connection;
    if (connection) {
      try {
        await this.#openConsumer(connection, consumer);
      } catch (error) {
        this.#consumers.delete(consumer);
        throw new QueueError('rabbitmq', 'consume', `Cannot consume from "${source}": ${message(error)}`, {
          destination: source,
          cause: error,
        });
      }
    }
    return {
      source,
      cancel: async () => {
        consumer.cancelled = true;
        this.#consumers.delete(consumer);
        await this.#cancelConsumer(consumer);
      },
    };
  }

  async stop(): Promise<void> {
    if (this.#closed) return;
    this.#stopping = true;
    // No new deliveries; those being handled finish (and may still publish) before the connection closes.
    await Promise.all([...this.#consumers].map((consumer) => this.#cancelConsumer(consumer)));
    const drained = await this.#inFlight.drain(this.#options.drainTimeout, this.#clock);
    if (!drained) {
      this.#logger.warn(
        { handlers: this.#inFlight.count, drainTimeout: this.#options.drainTimeout },
        'RabbitMQ handlers still running at the drain deadline; their messages stay unacknowledged and will be redelivered',
      );
    }
    this.#closed = true;
    this.#clock.clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#consumers.clear();
    const connection = this.#connection;
    this.#connection = undefined;
    this.#publisher = undefined;
    this.#ready.resolve();
    await this.#connecting?.catch(() => undefined);
    const late = this.#connection as ChannelModel | undefined;
    this.#connection = undefined;
    await Promise.all([connection, late].map((c) => c?.close().catch(() => undefined)));
  }

  health(): IntegrationHealth {
    const connected = this.#connection !== undefined;
    return {
      healthy: connected && !this.#closed,
      detail: this.#closed
        ? 'stopped'
        : connected
          ? `connected to ${this.#where()}`
          : `reconnecting to ${this.#where()}${this.#lastError ? ` (${this.#lastError})` : ''}`,
      consumers: this.#consumers.size,
      inFlight: this.#inFlight.count,
      ...this.stats,
    };
  }

  #where(): string {
    try {
      const url = new URL(this.#options.connection);
      return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
    } catch {
      return 'the configured URL';
    }
  }

  #closedError(operation: 'connect' | 'publish' | 'consume', destination?: string): QueueError {
    return new QueueError('rabbitmq', operation, 'The RabbitMQ processor is stopped', {
      ...(destination ? { destination } : {}),
      isRetryable: false,
    });
  }

  #connect(): Promise<void> {
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #open(): Promise<void> {
    const connection = await connect(withHeartbeat(this.#options.connection, this.#options.heartbeat), {
      noDelay: true,
      timeout: 10_000,
      clientProperties: { connection_name: 'threatlib-queue' },
    });
    if (this.#closed) {
      await connection.close().catch(() => undefined);
      return;
    }
    connection.on('error', (error: Error) => {
      this.#lastError = error.message;
      this.#logger.warn({ err: error }, 'RabbitMQ connection error');
    });
    connection.on('close', () => this.#lost(connection));
    try {
      const publisher = await connection.createConfirmChannel();
      publisher.on('error', (error: Error) => this.#logger.warn({ err: error }, 'RabbitMQ publish channel error'));
      // A lost publish channel is handled as a lost connection: one recovery path, tested by the broker restart.
      publisher.on('close', () => {
        if (this.#connection === connection && !this.#closed) connection.close().catch(() => undefined);
      });
      this.#connection = connection;
      this.#publisher = publisher;
      this.#declared = new Set();
      this.#declaring = new Map();
      for (const consumer of this.#consumers) {
        if (!consumer.cancelled && !this.#stopping) await this.#openConsumer(connection, consumer);
      }
    } catch (error) {
      this.#connection = undefined;
      this.#publisher = undefined;
      await connection.close().catch(() => undefined);
      throw error;
    }
    this.#lastError = undefined;
    this.#reconnectAttempt = 0;
    this.#ready.resolve();
  }

  #lost(connection: ChannelModel): void {
    if (this.#connection !== connection && this.#connection !== undefined) return;
    const wasCurrent = this.#connection === connection;
    this.#connection = undefined;
    this.#publisher = undefined;
    for (const consumer of this.#consumers) {
      consumer.channel = undefined;
      consumer.consumerTag = undefined;
    }
    if (this.#closed) return;
    if (wasCurrent) {
      this.#ready = deferred();
      this.#logger.warn({ broker: this.#where() }, 'RabbitMQ connection lost; reconnecting');
      this.#scheduleReconnect();
    }
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer !== undefined) return;
    const { initialDelay, maxDelay, multiplier } = this.#options.reconnect;
    const delay = Math.min(maxDelay, initialDelay * multiplier ** this.#reconnectAttempt);
    this.#reconnectAttempt += 1;
    this.#reconnectTimer = this.#clock.setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#closed) return;
      this.#connect().then(
        () => {
          this.stats.reconnections += 1;
          this.#logger.info({ broker: this.#where() }, 'RabbitMQ connection re-established');
        },
        (error: unknown) => {
          this.#lastError = message(error);
          this.#logger.debug({ err: error, attempt: this.#reconnectAttempt }, 'RabbitMQ reconnection failed');
          this.#scheduleReconnect();
        },
      );
    }, delay);
  }

  /** Resolves once connected; rejects at `deadline` or when the processor is closed. */
  async #whenConnected(deadline: number, destination: string): Promise<void> {
    if (this.#connection && this.#publisher) return;
    let timer: unknown;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.#clock.setTimeout(
        () =>
          reject(
            new QueueError(
              'rabbitmq',
              'publish',
              `No connection to RabbitMQ at ${this.#where()} within ${this.#options.publishTimeout} ms${
                this.#lastError ? ` (${this.#lastError})` : ''
              }`,
              { destination },
            ),
          ),
        Math.max(0, deadline - this.#clock.now()),
      );
    });
    try {
      await Promise.race([this.#ready.promise, timeout]);
    } finally {
      this.#clock.clearTimeout(timer);
    }
    if (this.#closed) throw this.#closedError('publish', destination);
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => this.#clock.setTimeout(resolve, ms));
  }

  /**
   * Declares queues on a channel of its own, so a refused declaration closes only that channel. Concurrent callers
   * share one declaration per queue and connection.
   */
  async #declare(connection: ChannelModel, queues: Array<string | { name: string; arguments: Options.AssertQueue }>) {
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
            if (this.#connection === connection) this.#declared.add(name);
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

  async #openConsumer(connection: ChannelModel, consumer: Consumer): Promise<void> {
    const { source } = consumer;
    const delays = new Set<number>();
    for (let next = 2; next <= this.#options.maxAttempts; next += 1) delays.add(retryDelayBefore(next, this.#options));
    await this.#declare(connection, [
      source,
      deadLetterQueue(source),
      ...[...delays].map((delay) => retryQueue(source, delay)),
    ]);
    const channel = await connection.createConfirmChannel();
    channel.on('error', (error: Error) =>
      this.#logger.warn({ err: error, queue: source }, 'RabbitMQ consumer channel error'),
    );
    channel.on('close', () => {
      if (consumer.channel !== channel) return;
      consumer.channel = undefined;
      consumer.consumerTag = undefined;
      // The channel closed but the connection lives (a broker-side cancel, a channel error): consume again on a
      // fresh channel. When the connection itself went, the reconnection reopens every consumer instead.
      if (!consumer.cancelled && !this.#stopping && this.#connection === connection) {
        this.#clock.setTimeout(() => {
          if (!consumer.cancelled && !this.#stopping && this.#connection === connection && !consumer.channel) {
            this.#openConsumer(connection, consumer).catch((error: unknown) =>
              this.#logger.warn({ err: error, queue: source }, 'RabbitMQ consumer could not resume'),
            );
          }
        }, this.#options.reconnect.initialDelay);
      }
    });
    await channel.prefetch(this.#options.prefetch);
    consumer.channel = channel;
    const reply = await channel.consume(
      source,
      (delivery) => {
        if (delivery === null) {
          // The broker cancelled the consumer (its queue was deleted): closing the channel resumes consumption.
          channel.close().catch(() => undefined);
          return;
        }
        void this.#inFlight.track(() => this.#deliver(consumer, channel, delivery));
      },
      { noAck: false },
    );
    consumer.consumerTag = reply.consumerTag;
  }

  async #cancelConsumer(consumer: Consumer): Promise<void> {
    const { channel, consumerTag } = consumer;
    if (!channel || !consumerTag) return;
    consumer.consumerTag = undefined;
    await channel.cancel(consumerTag).catch(() => undefined);
  }

  async #deliver(consumer: Consumer, channel: ConfirmChannel, delivery: ConsumeMessage): Promise<void> {
    const headers = textHeaders(delivery.properties.headers);
    const attempt = attemptOf(headers[HEADERS.attempt]);
    const message = createQueueMessage({
      source: consumer.source,
      raw: delivery.content,
      headers,
      attempt,
      id: headerText(delivery.properties.messageId),
      key: undefined,
    });
    this.stats.delivered += 1;
    try {
      await consumer.handler(message);
    } catch (error) {
      await this.#handleFailure(consumer, channel, delivery, error, attempt);
      return;
    }
    if (ack(channel, delivery)) this.stats.completed += 1;
  }

  async #handleFailure(
    consumer: Consumer,
    channel: ConfirmChannel,
    delivery: ConsumeMessage,
    error: unknown,
    attempt: number,
  ): Promise<void> {
    const decision = afterFailure(error, attempt, this.#options);
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
        this.stats.retried += 1;
        this.#logger.debug(
          { queue: consumer.source, attempt, delay: decision.delay, err: error },
          'handler failed; message scheduled for another attempt',
        );
      } else {
        await confirmedSend(channel, deadLetterQueue(consumer.source), delivery.content, {
          ...properties,
          headers: {
            ...withoutDeathHistory(original),
            ...deadLetterHeaders(error, decision.reason, consumer.source, attempt, this.#clock.now()),
          },
        });
        this.stats.deadLettered += 1;
        this.#logger.warn(
          { queue: consumer.source, attempts: attempt, reason: decision.reason, err: error },
          `message dead-lettered to ${deadLetterQueue(consumer.source)}`,
        );
      }
    } catch (moveError) {
      // Not moved: leave it to the broker. On a live channel it is requeued now; on a dead one it is redelivered
      // after the reconnection. Either way it is not lost.
      this.#logger.warn({ queue: consumer.source, err: moveError }, 'could not move a failed message; requeueing it');
      try {
        channel.nack(delivery, false, true);
      } catch {
        // The channel is gone; the broker requeues every unacknowledged message of a closed channel.
      }
      return;
    }
    ack(channel, delivery);
  }
}

/** Sends on a confirm channel and resolves when the broker confirmed (rejects when it nacked or the channel died). */
function confirmedSend(channel: ConfirmChannel, queue: string, body: Buffer, options: Options.Publish) {
  return new Promise<void>((resolve, reject) => {
    try {
      channel.sendToQueue(queue, body, options, (error: unknown) => (error ? reject(asError(error)) : resolve()));
    } catch (error) {
      reject(asError(error));
    }
  });
}

/** Acknowledges on the channel that delivered; false when that channel is gone (the broker will redeliver). */
function ack(channel: ConfirmChannel, delivery: ConsumeMessage): boolean {
  try {
    channel.ack(delivery);
    return true;
  } catch {
    return false;
  }
}

function textHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    // Tables and arrays (the broker's x-death history) are not text; a handler has no use for them.
    if (value === null || value === undefined || (typeof value === 'object' && !Buffer.isBuffer(value))) continue;
    setOwn(out, name, headerText(value) ?? '');
  }
  return out;
}

/** The broker's dead-letter history grows with every pass through a retry queue; what we keep is our own count. */
function withoutDeathHistory(headers: Record<string, unknown>): Record<string, unknown> {
  const {
    'x-death': _death,
    'x-first-death-exchange': _exchange,
    'x-first-death-queue': _queue,
    'x-first-death-reason': _reason,
    'x-last-death-exchange': _lastExchange,
    'x-last-death-queue': _lastQueue,
    'x-last-death-reason': _lastReason,
    ...rest
  } = headers;
  return rest;
}

/** The URL with `heartbeat` set, unless the URL sets it itself. */
function withHeartbeat(connection: string, seconds: number): string {
  if (/[?&]heartbeat=/.test(connection)) return connection;
  return `${connection}${connection.includes('?') ? '&' : '?'}heartbeat=${seconds}`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
