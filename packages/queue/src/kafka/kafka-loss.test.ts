import { silentLogger } from '@threatlib/core';
import { afterAll, expect, it } from 'vitest';
import { HEADERS } from '../message/headers.js';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import type { KafkaOptions } from '../options/processor-options.js';
import { Collector, describeWithBroker, E2E_KAFKA_BROKERS, uniqueName } from '../test-support/brokers.js';
import { deleteKafkaTopics } from '../test-support/cleanup.js';
import { makeWorkload, spawnPipeline } from '../test-support/loss-workload.js';

describeWithBroker('kafka', 'the Kafka pipeline loses nothing', () => {
  const names: string[] = [];
  afterAll(async () => {
    await deleteKafkaTopics(names.flatMap((n) => [`${n}.in`, `${n}.out`, `${n}.threats`, `${n}.alerts`]));
  });

  it('10,000 records, the consumer process SIGKILLed mid-stream and restarted: processed + dead-lettered = sent', async () => {
    const workload = makeWorkload('kafka-kill', 10_000, 100);
    const name = uniqueName('kafka-kill');
    names.push(name);
    const topics = {
      incoming: `${name}.in`,
      processed: `${name}.out`,
      threats: `${name}.threats`,
      alerts: `${name}.alerts`,
    };
    const options: KafkaOptions = {
      type: 'kafka',
      brokers: E2E_KAFKA_BROKERS,
      groupId: `${name}.pipeline`,
      topics,
      prefetch: 50,
      retryDelay: 50,
      // A killed consumer's partitions go to the next one after this long without a heartbeat.
      sessionTimeout: 6000,
      streamProcessing: { enabled: false, batchSize: 500, flushInterval: 100 },
    };

    const observer = new MessageQueueProcessor(
      { type: 'kafka', brokers: E2E_KAFKA_BROKERS, groupId: `${name}.observer`, prefetch: 500 },
      { logger: silentLogger },
    );
    const processed = new Set<string>();
    const dead = new Map<string, Record<string, string>>();
    const threats = new Set<string>();
    let duplicates = 0;
    const progress = new Collector<number>();
    try {
      await observer.consume(topics.processed, (message) => {
        const { indicator } = message.json<{ indicator: string }>();
        if (processed.has(indicator)) duplicates += 1;
        processed.add(indicator);
        progress.push(1);
      });
      await observer.consume(`${topics.incoming}.dlq`, (message) => {
        dead.set(message.content, message.headers);
        progress.push(1);
      });
      await observer.consume(topics.threats, (message) => {
        const value = message.json<{ indicator: string; threatLevel: string; sources: string[]; timestamp: number }>();
        expect(value.threatLevel).toMatch(/^(low|medium|high|critical)$/);
        expect(value.sources).toEqual(['list:loss-blocklist']);
        expect(Number.isInteger(value.timestamp)).toBe(true);
        threats.add(value.indicator);
      });

      const producer = new MessageQueueProcessor(
        {
          type: 'kafka',
          brokers: E2E_KAFKA_BROKERS,
          streamProcessing: { enabled: true, batchSize: 500, flushInterval: 20 },
        },
        { logger: silentLogger },
      );
      await Promise.all(workload.bodies.map((body) => producer.publish(topics.incoming, body)));
      await producer.stop();

      const first = spawnPipeline(workload.config, options);
      await first.ready;
      await progress.until((items) => items.length >= 3000, '3,000 records handled by the first process');
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      expect(processed.size + dead.size).toBeLessThan(workload.bodies.length);

      const second = spawnPipeline(workload.config, options);
      await second.ready;
      await progress.until(
        () => processed.size + dead.size === workload.bodies.length,
        'every record processed or dead-lettered',
        50_000,
      );
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      expect(processed.size + dead.size).toBe(workload.bodies.length);
      expect([...workload.indicators].filter((i) => !processed.has(i))).toEqual([]);
      expect([...workload.malformed].filter((m) => !dead.has(m))).toEqual([]);
      for (const headers of dead.values()) expect(headers[HEADERS.reason]).toBe('unprocessable');
      await progress.until(
        () => [...workload.listed].every((i) => threats.has(i)),
        'every listed indicator as a threat',
      );
      console.log(`kafka kill: ${duplicates} processed records seen twice (consumed again after the kill)`);
    } finally {
      await observer.stop();
    }
  }, 90_000);
});
