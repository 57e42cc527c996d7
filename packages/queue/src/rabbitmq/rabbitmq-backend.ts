// The RabbitMQ back end: its connection and reconnection, publishing with confirms, and its consumers.
import type { Logger } from '@threatlib/core';
import type { Clock, IntegrationHealth } from '@threatlib/core/integration';
import { type ChannelModel, type ConfirmChannel, type ConsumeMessage, connect, type Options } from 'amqplib';
import { QueueError } from '../errors/queue-error.js';
import {
  emptyStats,
  type PublishOptions,
  type QueueBackend,
  type QueueStats,
  type Subscription,
} from '../message/backend.js';
import { attemptOf, HEADERS, headerText } from '../message/headers.js';
import { InFlight } from '../message/in-flight.js';
import { createQueueMessage, type MessageHandler } from '../message/queue-message.js';
import type { ResolvedRabbitMqOptions } from '../options/processor-options.js';
import { retryDelayBefore } from '../retry/retry-policy.js';
import { ack, confirmedSend, type Deferred, deferred, message, textHeaders, withHeartbeat } from './amqp-channel.js';
import { moveFailedMessage } from './failed-delivery.js';
import { QueueDeclarations } from './queue-declarations.js';
import { deadLetterQueue, retryQueue } from './topology.js';

interface Consumer {
  source: string;
  handler: MessageHandler;
  /** The channel it consumes on now; undefined while it waits for a connection. */
  channel: ConfirmChannel | undefined;
  consumerTag: string | undefined;
  cancelled: boolean;
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
  /** Queues declared on the current connection. */
  readonly #declarations = new QueueDeclarations(() => this.#connection);
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
        if (!this.#declarations.has(destination)) await this.#declarations.declare(connection, [destination]);
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
        // Persistent (with the confirm: the broker has it on disk) and typed; the bodies carry their own times, so
        // no per-message timestamp property, and a headers table only when the caller gave headers.
        const properties: Options.Publish = { persistent: true, contentType: 'application/json' };
        if (options.messageId) properties.messageId = options.messageId;
        if (options.headers) properties.headers = options.headers;
        await confirmedSend(publisher, destination, body, properties);
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
      this.#declarations.reset();
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

  async #openConsumer(connection: ChannelModel, consumer: Consumer): Promise<void> {
    const { source } = consumer;
    const delays = new Set<number>();
    for (let next = 2; next <= this.#options.maxAttempts; next += 1) delays.add(retryDelayBefore(next, this.#options));
    await this.#declarations.declare(connection, [
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
      await moveFailedMessage(
        { options: this.#options, stats: this.stats, logger: this.#logger, clock: this.#clock },
        consumer,
        channel,
        delivery,
        error,
        attempt,
      );
      return;
    }
    if (ack(channel, delivery)) this.stats.completed += 1;
  }
}
