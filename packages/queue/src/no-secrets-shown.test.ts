// Issue 21, finding 9: a MessageQueueProcessor held the AMQP password of its connection URL in `options.connection`,
// shown by JSON.stringify, util.inspect and any walk of its properties. The processor, its options, the error a
// failed connection gets, a connected processor and the integration a client builds from integrations.messageQueue
// show no password through JSON.stringify, util.inspect (depth Infinity), String() or a walk of enumerable properties.
import { IntegrationError, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { expectNoSecretShown } from '@threatlib/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { MessageQueueProcessor } from './message-queue-processor.js';
import { describeWithBroker, E2E_RABBITMQ_URL, uniqueName } from './test-support/brokers.js';
import { deleteRabbitQueues } from './test-support/cleanup.js';

const PASSWORD = 'amqp-pw-6Rt2yUq9Lk4X';
const OFFLINE: ThreatConfig = { sources: ['feed_urls'] };
const application = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name: string) => (name === '@threatlib/queue' ? import('./index.js') : import(name)),
} as const;

describe('a processor shows no password of its AMQP URL', () => {
  it('made: the processor, its options and its view keep the rest of the URL', () => {
    const processor = new MessageQueueProcessor({
      type: 'rabbitmq',
      connection: `amqps://threatlib:${PASSWORD}@mq.example:5671/intel`,
      queues: { incoming: 'in', processed: 'out', alerts: 'alerts' },
    });
    expectNoSecretShown('processor', processor, [PASSWORD]);
    expect(processor.options.connection).toBe('amqps://threatlib:[redacted]@mq.example:5671/intel');
    expect(processor.options.queues).toEqual({ incoming: 'in', processed: 'out', alerts: 'alerts' });
    expect(JSON.parse(JSON.stringify(processor))).toMatchObject({ type: 'rabbitmq', options: { prefetch: 20 } });
  });

  it('refused by the broker address: the error start() rejects with, and the processor', async () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const processor = new MessageQueueProcessor({
      type: 'rabbitmq',
      connection: `amqp://threatlib:${PASSWORD}@127.0.0.1:1`,
    });
    const error = await processor.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expectNoSecretShown('connection error', error, [PASSWORD]);
    expectNoSecretShown('processor after a failed start', processor, [PASSWORD]);
    await processor.stop();
  });

  it('in a client: the integrations.messageQueue options and the error start() rejects with', async () => {
    const client = new ThreatClient(
      {
        ...OFFLINE,
        integrations: { messageQueue: { type: 'rabbitmq', connection: `amqp://threatlib:${PASSWORD}@127.0.0.1:1` } },
      },
      application,
    );
    expectNoSecretShown('client', client, [PASSWORD]);
    const error = await client.start().catch((e: unknown) => e);
    expect(IntegrationError.isInstance(error)).toBe(true);
    expectNoSecretShown('start error', error, [PASSWORD]);
  });
});

describeWithBroker('rabbitmq', 'connected to RabbitMQ (the e2e broker, guest:guest)', () => {
  // The e2e broker's only user is guest: what must not show is its password after the user name.
  const SECRETS = ['guest:guest', ':guest@'];
  const queues = {
    incoming: `${uniqueName('secrets')}.in`,
    processed: `${uniqueName('secrets')}.out`,
    alerts: `${uniqueName('secrets')}.alerts`,
  };
  afterAll(() => deleteRabbitQueues(Object.values(queues)));

  it('a processor that published, and the integration a client built and started', async () => {
    const processor = new MessageQueueProcessor({ type: 'rabbitmq', connection: E2E_RABBITMQ_URL, queues });
    const client = new ThreatClient(
      { ...OFFLINE, integrations: { messageQueue: { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, queues } } },
      application,
    );
    try {
      await processor.publish(queues.processed, { indicator: 'evil.example' });
      expectNoSecretShown('connected processor', processor, SECRETS);
      await client.start();
      expectNoSecretShown('messageQueue integration', client.integration('messageQueue'), SECRETS);
      expectNoSecretShown('started client', client, SECRETS);
    } finally {
      await client.stop();
      await processor.stop();
    }
  });
});
