import { silentLogger, ValidationError } from '@threatlib/core';
import { afterAll, describe, expect, it } from 'vitest';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import { Collector, describeWithBroker, E2E_KAFKA_BROKERS, uniqueName } from '../test-support/brokers.js';
import { deleteKafkaTopics } from '../test-support/cleanup.js';

const documented = {
  indicator: '198.51.100.4',
  threatLevel: 'high',
  sources: ['feed_abuse', 'feed_otx'],
  timestamp: 1_767_225_600_000,
};

describe('produce refuses a value that is not a stream event, naming the field', () => {
  it.each([
    [{ threatLevel: 8 }, 'Invalid stream event: threatLevel: expected one of low, medium, high, critical'],
    [{ threatLevel: 'severe' }, 'threatLevel: expected one of low, medium, high, critical, got "severe"'],
    [{ timestamp: '2026-01-01T00:00:00Z' }, 'timestamp: expected epoch milliseconds'],
    [{ extra: 1 }, 'extra: unknown field'],
  ])('%j', async (change, message) => {
    const processor = new MessageQueueProcessor({ type: 'kafka', brokers: E2E_KAFKA_BROKERS });
    try {
      const produced = processor.produce('never.sent', { key: 'k', value: { ...documented, ...change } as never });
      await expect(produced).rejects.toThrow(ValidationError);
      await expect(produced).rejects.toThrow(message);
    } finally {
      await processor.stop();
    }
  });
});

describeWithBroker('kafka', 'produce on a real Kafka', () => {
  const topic = uniqueName('stream-event');
  afterAll(() => deleteKafkaTopics([topic]));

  it("produces the documented record {key, value: {indicator, threatLevel: 'high', sources, timestamp}}", async () => {
    const producer = new MessageQueueProcessor({ type: 'kafka', brokers: E2E_KAFKA_BROKERS }, { logger: silentLogger });
    const observer = new MessageQueueProcessor({ type: 'kafka', brokers: E2E_KAFKA_BROKERS }, { logger: silentLogger });
    const seen = new Collector<{ key: string | undefined; value: unknown }>();
    try {
      await observer.consume(topic, (message) => seen.push({ key: message.key, value: JSON.parse(message.content) }));
      await producer.produce(topic, { key: documented.indicator, value: documented });
      await producer.produce(topic, {
        key: 'evil.com',
        value: { ...documented, indicator: 'evil.com', threatLevel: 'CRITICAL' },
      });
      await seen.until((items) => items.length === 2, 'two stream events');
      expect(seen.items).toEqual([
        { key: '198.51.100.4', value: documented },
        { key: 'evil.com', value: { ...documented, indicator: 'evil.com', threatLevel: 'critical' } },
      ]);
    } finally {
      await producer.stop();
      await observer.stop();
    }
  });
});
