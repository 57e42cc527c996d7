import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AlertSchema,
  IntegrationError,
  ProcessedMessageSchema,
  silentLogger,
  THREAT_LEVELS,
  ThreatClient,
  type ThreatConfig,
  threatLevelForRiskScore,
} from '@threatlib/core';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { HEADERS } from '../message/headers.js';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import {
  Collector,
  describeWithBroker,
  E2E_KAFKA_BROKERS,
  E2E_RABBITMQ_URL,
  uniqueName,
  uniqueTopics,
} from '../test-support/brokers.js';
import { deleteKafkaTopics, deleteRabbitQueues } from '../test-support/cleanup.js';
import { type MessageQueueIntegration, registerMessageQueue } from './queue-integration.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-queue-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
const offline: ThreatConfig = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
};

describe('registerMessageQueue', () => {
  it('is typed through the integration registry', () => {
    const client = new ThreatClient(
      { ...offline, integrations: { messageQueue: { type: 'rabbitmq' } } },
      { env: false, logger: silentLogger },
    );
    const registered = registerMessageQueue(client);
    expectTypeOf(registered).toEqualTypeOf<MessageQueueIntegration>();
    expectTypeOf(client.integration('messageQueue')).toEqualTypeOf<MessageQueueIntegration | undefined>();
    expect(client.integration('messageQueue')).toBe(registered);
  });

  it('refuses a client whose integrations.messageQueue is not configured, saying what to set', () => {
    const client = new ThreatClient(offline, { env: false, logger: silentLogger });
    const error = (() => {
      try {
        registerMessageQueue(client);
      } catch (e) {
        return e;
      }
    })();
    expect(IntegrationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/integrations\.messageQueue: not configured: set \{type: "rabbitmq"/);
  });

  it('names an invalid option by its path in the client configuration', () => {
    const client = new ThreatClient(
      { ...offline, integrations: { messageQueue: { type: 'rabbitmq', prefetch: -1 } } },
      { env: false, logger: silentLogger },
    );
    expect(() => registerMessageQueue(client)).toThrow(/integrations\.messageQueue\.prefetch: /);
  });

  it("batches Kafka production by the client's enterprise.streamProcessing", () => {
    const client = new ThreatClient(
      {
        ...offline,
        enterprise: { streamProcessing: { enabled: true, batchSize: 250, flushInterval: 50 } },
        integrations: { messageQueue: { type: 'kafka', connection: { brokers: ['127.0.0.1:9092'] } } },
      },
      { env: false, logger: silentLogger },
    );
    const { processor } = registerMessageQueue(client);
    expect(processor.options).toMatchObject({
      type: 'kafka',
      streamProcessing: { enabled: true, batchSize: 250, flushInterval: 50 },
    });
  });
});

describeWithBroker('rabbitmq', 'the queue pipeline started by client.start()', () => {
  const name = uniqueName('pipeline');
  const queues = { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
  afterAll(() => deleteRabbitQueues(Object.values(queues)));

  it('scans incoming indicators, writes results and alerts, dead-letters the malformed, and stops cleanly', async () => {
    const client = new ThreatClient(
      {
        ...offline,
        integrations: { messageQueue: { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, queues, retryDelay: 10 } },
      },
      { env: false, logger: silentLogger },
    );
    const integration = registerMessageQueue(client);
    const observer = new MessageQueueProcessor({ type: 'rabbitmq', connection: E2E_RABBITMQ_URL });
    const processed = new Collector<{ indicator: string; results: Array<{ feed: string }>; processedAt: string }>();
    const alerts = new Collector<Record<string, unknown>>();
    const dead = new Collector<{ body: string; headers: Record<string, string> }>();
    try {
      await observer.consume(queues.processed, (m) => processed.push(m.json()));
      await observer.consume(queues.alerts, (m) => alerts.push(m.json()));
      await observer.consume(`${queues.incoming}.dlq`, (m) => dead.push({ body: m.content, headers: m.headers }));
      await client.start();
      expect((await client.integrationHealth())[0]).toMatchObject({ name: 'messageQueue', healthy: true });

      await observer.publish(queues.incoming, { indicator: 'EVIL.threatlib-test.net', type: 'domain' });
      await observer.publish(queues.incoming, { indicator: 'fine.threatlib-test.net' });
      await observer.publish(queues.incoming, '{"indicator": ');

      await processed.until((items) => items.length === 2, 'two results');
      expect(processed.items.map((p) => p.indicator).sort()).toEqual([
        'evil.threatlib-test.net',
        'fine.threatlib-test.net',
      ]);
      const evil = processed.items.find((p) => p.indicator === 'evil.threatlib-test.net');
      expect(evil?.results.map((r) => r.feed)).toEqual(['list:blocklist']);
      for (const item of processed.items) expect(() => ProcessedMessageSchema.parse(item)).not.toThrow();

      // One message for the threat: the client's alert, delivered by sendAlert, as the documented Alert record. A
      // marker published once every delivery ended arrives after anything else sent (one consumer: in order).
      await alerts.until((items) => items.length === 1, "the client's alert");
      await client.alerts.settled();
      await observer.publish(queues.alerts, { marker: name });
      await alerts.until((items) => items.some((m) => m.marker === name), 'the marker behind the alerts');
      expect(alerts.items).toHaveLength(2);
      const [raised] = (await client.alerts.list()).items;
      const [onQueue] = alerts.items;
      expect(() => AlertSchema.parse(onQueue)).not.toThrow();
      expect(onQueue).toMatchObject({
        id: raised?.id,
        title: 'Malicious domain: evil.threatlib-test.net',
        severity: raised?.severity,
        indicators: [{ type: 'domain', value: 'evil.threatlib-test.net', sources: ['list:blocklist'] }],
      });
      // Acknowledged only once the alert was on the queue: its delivery is recorded delivered by then.
      expect(raised?.deliveries).toEqual([
        expect.objectContaining({ integration: 'messageQueue', status: 'delivered', result: { queue: queues.alerts } }),
      ]);

      const [bad] = await dead.until((items) => items.length === 1, 'the malformed message');
      expect(bad?.body).toBe('{"indicator": ');
      expect(bad?.headers[HEADERS.error]).toMatch(/^message is not JSON/);

      const stored = await client.alerts.add({
        title: 'beacon',
        severity: 'high',
        indicators: [{ type: 'ip', value: '198.51.100.7' }],
      });
      await expect(integration.sendAlert(stored)).resolves.toEqual({ queue: queues.alerts });
      // Once delivered by client.alerts.add, once by the direct call.
      await alerts.until(
        (items) => items.filter((m) => m.id === stored.id).length === 2,
        'the alert sent through sendAlert',
      );
      expect(alerts.items.filter((m) => m.id === stored.id)).toEqual([
        expect.objectContaining({ title: 'beacon' }),
        expect.objectContaining({ title: 'beacon' }),
      ]);
    } finally {
      await client.stop();
      await observer.stop();
    }
    expect(integration.health()).toMatchObject({ healthy: false, detail: 'stopped' });
  });
});

describeWithBroker('rabbitmq', 'the queue pipeline with the documented message {indicator, type}', () => {
  const name = uniqueName('pipeline-ip');
  const queues = { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
  afterAll(() => deleteRabbitQueues(Object.values(queues)));

  it("scans {indicator: '8.8.8.8', type: 'ip'} as ipv4, and dead-letters a domain given as ip with the reason", async () => {
    const client = new ThreatClient(
      {
        ...offline,
        integrations: { messageQueue: { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, queues, retryDelay: 10 } },
      },
      { env: false, logger: silentLogger },
    );
    registerMessageQueue(client);
    const observer = new MessageQueueProcessor({ type: 'rabbitmq', connection: E2E_RABBITMQ_URL });
    const processed = new Collector<{ indicator: string; results: Array<{ type: string }> }>();
    const dead = new Collector<{ body: string; error: string | undefined }>();
    try {
      // The consumer as the interface writes it: the content is the JSON string.
      await observer.consume(queues.processed, (message) => processed.push(JSON.parse(message.content)));
      await observer.consume(`${queues.incoming}.dlq`, (message) =>
        dead.push({ body: message.content, error: message.headers[HEADERS.error] }),
      );
      await client.start();
      await observer.publish(queues.incoming, { indicator: '8.8.8.8', type: 'ip' });
      await observer.publish(queues.incoming, { indicator: 'evil.threatlib-test.net', type: 'ip' });

      const [result] = await processed.until((items) => items.length === 1, 'the result for 8.8.8.8');
      expect(result?.indicator).toBe('8.8.8.8');
      expect(result?.results.map((r) => r.type)).toEqual(['ipv4']);
      const [bad] = await dead.until((items) => items.length === 1, 'the domain given as ip');
      expect(JSON.parse(bad?.body ?? '')).toEqual({ indicator: 'evil.threatlib-test.net', type: 'ip' });
      expect(bad?.error).toContain('not a valid ip: expected an IPv4 or IPv6 address; this is a domain name');
    } finally {
      await client.stop();
      await observer.stop();
    }
  });
});

describeWithBroker('kafka', 'the queue pipeline on Kafka', () => {
  const { topics } = uniqueTopics('pipeline-kafka');
  afterAll(() => deleteKafkaTopics(Object.values(topics)));

  it('produces a threat as the documented stream event, threatLevel a name', async () => {
    const client = new ThreatClient(
      { ...offline, integrations: { messageQueue: { type: 'kafka', brokers: E2E_KAFKA_BROKERS, topics } } },
      { env: false, logger: silentLogger },
    );
    registerMessageQueue(client);
    const observer = new MessageQueueProcessor({ type: 'kafka', brokers: E2E_KAFKA_BROKERS }, { logger: silentLogger });
    const threats = new Collector<{ key: string | undefined; value: Record<string, unknown> }>();
    const alerts = new Collector<Record<string, unknown>>();
    try {
      await observer.consume(topics.threats, (message) =>
        threats.push({ key: message.key, value: JSON.parse(message.content) }),
      );
      await observer.consume(topics.alerts, (message) => alerts.push(JSON.parse(message.content)));
      await client.start();
      const before = Date.now();
      await observer.publish(topics.incoming, { indicator: 'evil.threatlib-test.net', type: 'domain' });
      const [threat] = await threats.until((items) => items.length === 1, 'the threat');
      const correlation = await client.correlate('evil.threatlib-test.net');
      expect(threat?.key).toBe('evil.threatlib-test.net');
      expect(Object.keys(threat?.value ?? {}).sort()).toEqual(['indicator', 'sources', 'threatLevel', 'timestamp']);
      expect(threat?.value).toMatchObject({ indicator: 'evil.threatlib-test.net', sources: ['list:blocklist'] });
      expect(THREAT_LEVELS).toContain(threat?.value.threatLevel);
      expect(threat?.value.threatLevel).toBe(threatLevelForRiskScore(correlation.riskScore));
      expect(threat?.value.timestamp).toBeGreaterThanOrEqual(before);
      // The client's alert goes to the alerts topic, an Alert record keyed by its id: one per threat.
      const [alert] = await alerts.until((items) => items.length === 1, 'the alert');
      const [raised] = (await client.alerts.list()).items;
      expect(AlertSchema.parse(alert)).toMatchObject({
        id: raised?.id,
        indicators: [{ type: 'domain', value: 'evil.threatlib-test.net' }],
      });
    } finally {
      await client.stop();
      await observer.stop();
    }
  });
});
