// The message queues of ../shared/INTERFACE.md (sections 2.5 and 4.2): `MessageQueueProcessor` from
// `@threatlib/queue` on a real RabbitMQ and a real Kafka (the e2e services), with the documented messages, and a
// client configured with `integrations: {messageQueue: {type, connection, queues}}` that consumes once started.
// Queue and topic names are unique per run; the broker addresses are the e2e services'.
import { AlertSchema, ThreatClient } from '@threatlib/core';
import { MessageQueueProcessor } from '@threatlib/queue';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  describeWith,
  type EmulatedFeeds,
  eventually,
  servicePort,
  startEmulatedFeeds,
  uniqueName,
} from './support.js';

const RABBITMQ = `amqp://guest:guest@127.0.0.1:${servicePort('rabbitmq')}`;
const KAFKA_BROKERS = [`127.0.0.1:${servicePort('kafka')}`];

let feeds: EmulatedFeeds;
const running: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
  feeds.emulator.script('198.51.100.23', 'malicious');
});

afterEach(async () => {
  // Last made, first stopped: consumers before the clients they feed.
  for (const item of running.splice(0).reverse()) await item.stop();
});

afterAll(async () => {
  await feeds?.emulator.close();
});

describeWith(['rabbitmq'], '4.2 MessageQueueProcessor on the queue broker (type: rabbitmq)', () => {
  it('consumes {indicator, type} with JSON.parse(message.content), scans it and publishes the processed message', async () => {
    const trojan = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      apiKeys: feeds.apiKeys,
      security: { enforceHttps: false },
      logging: { enabled: false },
    });
    running.push(trojan);
    const queues = {
      incoming: uniqueName('incoming'),
      processed: uniqueName('processed'),
      alerts: uniqueName('alerts'),
    };
    const processor = new MessageQueueProcessor({ type: 'rabbitmq', connection: RABBITMQ, queues });
    running.push(processor);

    await processor.consume(queues.incoming, async (message) => {
      const data = JSON.parse(message.content);
      const results = await trojan.scout(data.indicator, { type: data.type });
      await processor.publish(queues.processed, {
        indicator: data.indicator,
        results,
        processedAt: new Date().toISOString(),
      });
    });
    const processed: { indicator: string; results: { results: unknown[] }; processedAt: string }[] = [];
    await processor.consume(queues.processed, async (message) => {
      processed.push(JSON.parse(message.content));
    });

    await processor.publish(queues.incoming, { indicator: '8.8.8.8', type: 'ip' });
    await eventually(() => processed.length === 1, 'the processed message', 30_000);
    expect(processed[0]).toMatchObject({
      indicator: '8.8.8.8',
      results: { indicator: '8.8.8.8', type: 'ipv4' },
      processedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(processed[0]?.results.results).toHaveLength(5);
  });
});

describeWith(['kafka'], '4.2 MessageQueueProcessor on the stream broker (type: kafka)', () => {
  it('produces {key, value: {indicator, threatLevel: "high", sources, timestamp}} and reads it back', async () => {
    const topics = { threats: uniqueName('threats'), alerts: uniqueName('alerts') };
    const processor = new MessageQueueProcessor({ type: 'kafka', brokers: KAFKA_BROKERS, topics });
    running.push(processor);

    const indicator = '198.51.100.23';
    const timestamp = Date.now();
    await processor.produce(topics.threats, {
      key: indicator,
      value: { indicator, threatLevel: 'high', sources: ['feed_abuse', 'feed_cti'], timestamp },
    });

    const read: { key: unknown; value: unknown }[] = [];
    await processor.consume(topics.threats, async (message) => {
      read.push({ key: message.key, value: JSON.parse(message.content) });
    });
    await eventually(() => read.length === 1, 'the produced record', 60_000);
    expect(read[0]).toEqual({
      key: indicator,
      value: { indicator, threatLevel: 'high', sources: ['feed_abuse', 'feed_cti'], timestamp },
    });
  }, 90_000);
});

describeWith(['rabbitmq'], '4.2 a client constructed with integrations.messageQueue', () => {
  it('consumes the incoming queue once started, with no other call', async () => {
    const queues = {
      incoming: uniqueName('incoming'),
      processed: uniqueName('processed'),
      alerts: uniqueName('alerts'),
    };
    const trojan = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      strategy: 'custom',
      thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
      apiKeys: feeds.apiKeys,
      security: { enforceHttps: false },
      logging: { enabled: false },
      integrations: {
        messageQueue: { type: 'rabbitmq', connection: RABBITMQ, queues },
      },
    });
    running.push(trojan);
    await trojan.start();

    // Another program's side of the queues.
    const peer = new MessageQueueProcessor({ type: 'rabbitmq', connection: RABBITMQ });
    running.push(peer);
    const processed: { indicator: string; results: unknown; processedAt: string }[] = [];
    const alerts: unknown[] = [];
    await peer.consume(queues.processed, async (message) => {
      processed.push(JSON.parse(message.content));
    });
    await peer.consume(queues.alerts, async (message) => {
      alerts.push(JSON.parse(message.content));
    });

    await peer.publish(queues.incoming, { indicator: '8.8.8.8', type: 'ip' });
    await peer.publish(queues.incoming, { indicator: '198.51.100.23', type: 'ip' });
    await eventually(() => processed.length === 2, 'both processed messages', 30_000);
    expect(processed.map((message) => message.indicator).sort()).toEqual(['198.51.100.23', '8.8.8.8']);
    for (const message of processed) {
      expect(message).toEqual({
        indicator: message.indicator,
        results: expect.anything(),
        processedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    }
    // The threat, and only it, is on the alerts queue: one message, the documented Alert record.
    await eventually(() => alerts.length > 0, 'the alert', 30_000);
    await trojan.alerts.settled();
    // A marker published once every delivery ended arrives after anything sent before it (one consumer: in order).
    const marker = uniqueName('marker');
    await peer.publish(queues.alerts, { marker });
    await eventually(() => alerts.some((alert) => (alert as { marker?: string }).marker === marker), 'the marker');
    expect(alerts).toHaveLength(2);
    expect(AlertSchema.parse(alerts[0])).toMatchObject({
      title: expect.stringContaining('198.51.100.23'),
      severity: expect.stringMatching(/^(informational|low|medium|high|critical)$/),
      indicators: [{ type: 'ipv4', value: '198.51.100.23', confidence: expect.any(Number) }],
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(JSON.stringify(alerts)).not.toContain('8.8.8.8');
  }, 60_000);
});
