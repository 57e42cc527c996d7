import { silentLogger } from '@threatlib/core';
import { afterAll, expect, it } from 'vitest';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import { Collector, describeWithBroker, E2E_KAFKA_BROKERS, uniqueName } from '../test-support/brokers.js';
import { deleteKafkaTopics } from '../test-support/cleanup.js';

// Issue 21, finding 4: a record's headers were copied by assignment, so one named "__proto__" (which kafkajs hands
// over as an ordinary key) never reached the handler.
describeWithBroker('kafka', 'record headers on a real Kafka', () => {
  const topic = uniqueName('headers');
  afterAll(() => deleteKafkaTopics([topic]));

  it('reach the handler as given, whatever their names', async () => {
    const producer = new MessageQueueProcessor({ type: 'kafka', brokers: E2E_KAFKA_BROKERS }, { logger: silentLogger });
    const consumer = new MessageQueueProcessor({ type: 'kafka', brokers: E2E_KAFKA_BROKERS }, { logger: silentLogger });
    const seen = new Collector<Readonly<Record<string, string>>>();
    try {
      await consumer.consume(topic, (message) => seen.push(message.headers));
      const headers = JSON.parse('{"__proto__":"one","constructor":"two","trace":"three"}') as Record<string, string>;
      await producer.publish(topic, { indicator: '198.51.100.4' }, { headers });
      await seen.until((items) => items.length === 1, 'one record');
      const [received] = seen.items as [Readonly<Record<string, string>>];
      expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
      expect(Object.keys(received)).toEqual(expect.arrayContaining(['__proto__', 'constructor', 'trace']));
      expect(Object.getOwnPropertyDescriptor(received, '__proto__')?.value).toBe('one');
      expect(Object.getOwnPropertyDescriptor(received, 'constructor')?.value).toBe('two');
    } finally {
      await producer.stop();
      await consumer.stop();
    }
  });
});
