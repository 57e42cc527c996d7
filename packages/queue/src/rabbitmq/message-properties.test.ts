import { silentLogger } from '@threatlib/core';
import { connect } from 'amqplib';
import { afterAll, expect, it } from 'vitest';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import { describeWithBroker, E2E_RABBITMQ_URL, uniqueName } from '../test-support/brokers.js';
import { deleteRabbitQueues } from '../test-support/cleanup.js';

// What each published message carries on the wire (issue 27): persistent and typed as JSON, its messageId, the
// caller's headers and nothing else per message (no timestamp property: the bodies carry their own times; no headers
// table when none was given).
describeWithBroker('rabbitmq', 'RabbitMQ message properties', () => {
  const queue = uniqueName('properties');
  afterAll(() => deleteRabbitQueues([queue]));

  it('publishes persistent JSON with its messageId and only the headers given', async () => {
    const processor = new MessageQueueProcessor(
      { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, drainTimeout: 100 },
      { logger: silentLogger },
    );
    try {
      await processor.publish(queue, { indicator: '198.51.100.7' }, { messageId: 'm-1' });
      await processor.publish(queue, { indicator: '198.51.100.8' }, { headers: { 'x-trace': 't-2' } });
    } finally {
      await processor.stop();
    }
    const connection = await connect(E2E_RABBITMQ_URL);
    try {
      const channel = await connection.createChannel();
      const first = await channel.get(queue, { noAck: true });
      const second = await channel.get(queue, { noAck: true });
      if (!first || !second) throw new Error('the messages are not on the queue');
      expect(JSON.parse(first.content.toString())).toEqual({ indicator: '198.51.100.7' });
      expect(first.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json', messageId: 'm-1' });
      expect(first.properties.timestamp).toBeUndefined();
      expect(first.properties.headers ?? {}).toEqual({});
      expect(second.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json' });
      expect(second.properties.messageId).toBeUndefined();
      expect(second.properties.timestamp).toBeUndefined();
      expect(second.properties.headers).toEqual({ 'x-trace': 't-2' });
    } finally {
      await connection.close();
    }
  });
});
