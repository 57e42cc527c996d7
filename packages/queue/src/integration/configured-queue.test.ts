import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigurationError,
  IntegrationError,
  silentLogger,
  ThreatClient,
  type ThreatClientOptions,
  type ThreatConfig,
} from '@threatlib/core';
import { INTEGRATION_PACKAGES } from '@threatlib/core/integration';
import { afterAll, describe, expect, it } from 'vitest';
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
import { MessageQueueIntegration } from './queue-integration.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-configured-queue-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
const offline: ThreatConfig = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
};

/**
 * What an application with `@threatlib/queue` installed gives the client: core imports the package by name, and here
 * the name is this package's own source. Any other package is imported for real (and is not installed).
 */
const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name) => (name === '@threatlib/queue' ? import('../index.js') : import(name)),
};

interface Processed {
  indicator: string;
  results: Array<{ feed: string; verdict: string }>;
  processedAt: string;
}

describe('@threatlib/queue as the package core builds integrations.messageQueue from', () => {
  it("exports the factory core's table names for messageQueue", async () => {
    const entry = (await import('../index.js')) as Record<string, unknown>;
    expect(INTEGRATION_PACKAGES.messageQueue.package).toBe('@threatlib/queue');
    expect(typeof entry[INTEGRATION_PACKAGES.messageQueue.factory]).toBe('function');
  });

  it('refuses invalid options at start(), each named by its path under integrations.messageQueue', async () => {
    const client = new ThreatClient(
      { ...offline, integrations: { messageQueue: { type: 'rabbitmq', prefetch: -1, queues: { incoming: '' } } } },
      application,
    );
    const error = await client.start().catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Configuration invalid: /);
    expect((error as ConfigurationError).issues.map((issue) => issue.path)).toEqual([
      'integrations.messageQueue.queues.incoming',
      'integrations.messageQueue.prefetch',
    ]);
    expect(client.state).toBe('idle');

    const kafka = new ThreatClient({ ...offline, integrations: { messageQueue: { type: 'kafka' } } }, application);
    await expect(kafka.start()).rejects.toThrow(/^Configuration invalid: integrations\.messageQueue\.brokers: /);
  });

  it('makes start() reject naming messageQueue and the reason when the broker cannot be reached', async () => {
    const client = new ThreatClient(
      // Port 1 on loopback: nothing listens there, so the connection is refused at once.
      { ...offline, integrations: { messageQueue: { type: 'rabbitmq', connection: 'amqp://127.0.0.1:1' } } },
      application,
    );
    const error = await client.start().catch((e: unknown) => e);
    expect(IntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ integration: 'messageQueue', phase: 'start' });
    expect((error as Error).message).toMatch(/^Integration "messageQueue" failed to start: .*127\.0\.0\.1:1/);
    expect(client.integration('messageQueue')).toBeUndefined();
  });
});

describeWithBroker('rabbitmq', 'a client configured with integrations.messageQueue on RabbitMQ', () => {
  const name = uniqueName('configured');
  const queues = { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
  afterAll(() => deleteRabbitQueues(Object.values(queues)));

  it('consumes the incoming queue once started, with no other call, and stops with the client', async () => {
    // The documented shape: {type: 'rabbitmq', connection, queues: {incoming, processed, alerts}}.
    const client = new ThreatClient(
      { ...offline, integrations: { messageQueue: { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, queues } } },
      application,
    );
    const observer = new MessageQueueProcessor({ type: 'rabbitmq', connection: E2E_RABBITMQ_URL });
    const processed = new Collector<Processed>();
    try {
      await observer.consume(queues.processed, (m) => processed.push(m.json()));
      await client.start();
      const integration = client.integration('messageQueue');
      expect(integration).toBeInstanceOf(MessageQueueIntegration);
      expect(await client.integrationHealth()).toEqual([
        expect.objectContaining({ name: 'messageQueue', healthy: true, consuming: queues.incoming }),
      ]);

      await observer.publish(queues.incoming, { indicator: 'EVIL.threatlib-test.net', type: 'domain' });
      const [result] = await processed.until((items) => items.length === 1, 'the processed message');
      expect(result?.indicator).toBe('evil.threatlib-test.net');
      expect(result?.results.map((r) => [r.feed, r.verdict])).toEqual([['list:blocklist', 'malicious']]);
      expect(Number.isNaN(Date.parse(result?.processedAt ?? ''))).toBe(false);

      await client.stop();
      expect(integration?.health()).toMatchObject({ healthy: false, detail: 'stopped' });
      expect(client.integration('messageQueue')).toBeUndefined();
    } finally {
      if (client.state !== 'idle') await client.stop();
      await observer.stop();
    }
  });
});

describeWithBroker('kafka', 'a client configured with integrations.messageQueue on Kafka', () => {
  const { name, topics } = uniqueTopics('configured');
  afterAll(() => deleteKafkaTopics(Object.values(topics)));

  it('consumes the incoming topic once started, with no other call', async () => {
    // The documented shape: {type: 'kafka', brokers, topics}.
    const client = new ThreatClient(
      {
        ...offline,
        integrations: {
          messageQueue: { type: 'kafka', brokers: E2E_KAFKA_BROKERS, topics, groupId: name, sessionTimeout: 6000 },
        },
      },
      application,
    );
    const observer = new MessageQueueProcessor({
      type: 'kafka',
      brokers: E2E_KAFKA_BROKERS,
      groupId: `${name}.observer`,
      sessionTimeout: 6000,
    });
    const processed = new Collector<Processed>();
    try {
      await observer.consume(topics.processed, (m) => processed.push(m.json()));
      await client.start();
      expect(client.integration('messageQueue')).toBeInstanceOf(MessageQueueIntegration);

      await observer.publish(topics.incoming, { indicator: 'EVIL.threatlib-test.net', type: 'domain' });
      const [result] = await processed.until((items) => items.length === 1, 'the processed record');
      expect(result?.indicator).toBe('evil.threatlib-test.net');
      expect(result?.results.map((r) => [r.feed, r.verdict])).toEqual([['list:blocklist', 'malicious']]);
    } finally {
      await client.stop();
      await observer.stop();
    }
  });
});
