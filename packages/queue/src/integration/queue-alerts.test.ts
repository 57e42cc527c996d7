import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Alert, AlertSchema, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import { eventually } from '@threatlib/test-utils';
import { afterAll, expect, it } from 'vitest';
import { QueueError } from '../errors/queue-error.js';
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
import { registerMessageQueue } from './queue-integration.js';

/*
 * The queue pipeline scans with the client's `correlate`, so a threat read from the incoming queue raises the
 * client's alert: stored in client.alerts and delivered to every started integration, the queue's own sendAlert
 * (which publishes it to the alerts queue) included. That alert is the one message the alerts queue gets for the
 * threat, and the incoming message is acknowledged only once it is there.
 */

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-queue-alerts-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');

describeWithBroker('rabbitmq', 'a threat consumed from the incoming queue', () => {
  const name = uniqueName('alerts');
  const queues = { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
  afterAll(() => deleteRabbitQueues(Object.values(queues)));

  it('raises one alert, stored and delivered to every integration, the queue itself included', async () => {
    const received: Alert[] = [];
    class Siem implements Integration {
      sendAlert = async (alert: Alert) => {
        received.push(alert);
        return { case: 'C-1' };
      };
      enrichIndicator = async () => undefined;
    }
    const client = new ThreatClient(
      {
        sources: [],
        strategy: 'aggressive',
        lists: [{ name: 'blocklist', file: listFile }],
        integrations: { messageQueue: { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, queues } },
      } as ThreatConfig,
      {
        env: false,
        logger: silentLogger,
        loadIntegrationPackage: (pkg) => (pkg === '@threatlib/queue' ? import('../index.js') : import(pkg)),
      },
    );
    client.registerIntegration('siem', Siem);
    const observer = new MessageQueueProcessor({ type: 'rabbitmq', connection: E2E_RABBITMQ_URL });
    const onAlertsQueue = new Collector<Record<string, unknown>>();
    try {
      await observer.consume(queues.alerts, (m) => onAlertsQueue.push(m.json() as Record<string, unknown>));
      await client.start();
      await observer.publish(queues.incoming, { indicator: 'evil.threatlib-test.net', type: 'domain' });

      await eventually(() => received.length === 1, 'the alert at the registered integration');
      await client.alerts.settled();
      const { items } = await client.alerts.list();
      expect(items).toHaveLength(1);
      const [alert] = items as [Alert];
      expect(alert.indicators).toEqual([expect.objectContaining({ type: 'domain', value: 'evil.threatlib-test.net' })]);
      expect(received.map((a) => a.id)).toEqual([alert.id]);
      expect(alert.deliveries).toEqual([
        expect.objectContaining({ integration: 'siem', status: 'delivered', result: { case: 'C-1' } }),
        expect.objectContaining({ integration: 'messageQueue', status: 'delivered', result: { queue: queues.alerts } }),
      ]);
      await onAlertsQueue.until((all) => all.some((m) => m.id === alert.id), 'the alert on the alerts queue');
      // Nothing else for the threat: a marker published now arrives after anything sent before (one consumer).
      await observer.publish(queues.alerts, { marker: name });
      await onAlertsQueue.until((all) => all.some((m) => m.marker === name), 'the marker behind the alerts');
      expect(onAlertsQueue.items).toHaveLength(2);
      expect(AlertSchema.parse(onAlertsQueue.items[0])).toEqual({ ...alert, deliveries: expect.any(Array) });
    } finally {
      if (client.state !== 'idle') await client.stop();
      await observer.stop();
    }
  });
});

describeWithBroker(
  'rabbitmq',
  'the alert of a threat read from the incoming queue is never lost before the ack',
  () => {
    const names: string[] = [];
    afterAll(() => deleteRabbitQueues(names.flatMap((n) => [`${n}.in`, `${n}.out`, `${n}.alerts`, `${n}.in.dlq`])));
    const queuesFor = (label: string) => {
      const name = uniqueName(label);
      names.push(name);
      return { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
    };
    const offline = {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'blocklist', file: listFile }],
    } satisfies ThreatConfig;

    it('a delivery to the alerts queue that failed has the message tried again, which raises the alert again', async () => {
      const queues = queuesFor('alerts-retry');
      // No retries of the delivery itself: its first failure is final, so the message's own retry must make up for it.
      const client = new ThreatClient(
        { ...offline, performance: { retryAttempts: 0 } },
        { env: false, logger: silentLogger },
      );
      const integration = registerMessageQueue(client, {
        type: 'rabbitmq',
        connection: E2E_RABBITMQ_URL,
        queues,
        retryDelay: 10,
      });
      // The broker refusing the first alert, as it does when the alerts queue is over its limit.
      const publish = integration.sendAlert.bind(integration);
      let refused = 0;
      integration.sendAlert = async (alert) => {
        if (refused === 0) {
          refused += 1;
          throw new QueueError('rabbitmq', 'publish', `RabbitMQ refused a message to "${queues.alerts}"`);
        }
        return publish(alert);
      };
      const observer = new MessageQueueProcessor({ type: 'rabbitmq', connection: E2E_RABBITMQ_URL });
      const alerts = new Collector<Record<string, unknown>>();
      const processed = new Collector<string>();
      const dead = new Collector<string>();
      try {
        await observer.consume(queues.alerts, (m) => alerts.push(m.json()));
        await observer.consume(queues.processed, (m) => processed.push(m.content));
        await observer.consume(`${queues.incoming}.dlq`, (m) => dead.push(m.content));
        await client.start();
        await observer.publish(queues.incoming, { indicator: 'evil.threatlib-test.net', type: 'domain' });

        const [onQueue] = await alerts.until((items) => items.length === 1, 'the alert on the alerts queue');
        await client.alerts.settled();
        const stored = (await client.alerts.list()).items;
        expect(stored).toHaveLength(2);
        const delivered = stored.find((a) => a.deliveries[0]?.status === 'delivered');
        const failed = stored.find((a) => a.deliveries[0]?.status === 'failed');
        expect(failed?.deliveries[0]?.lastError).toContain('RabbitMQ refused a message');
        expect(AlertSchema.parse(onQueue).id).toBe(delivered?.id);
        // The message ran twice (its processed message is written each time: at least once) and was not dead-lettered.
        await processed.until((items) => items.length === 2, 'the processed message of each attempt');
        expect(integration.processor.stats).toMatchObject({ retried: 1, deadLettered: 0 });
        expect(dead.items).toEqual([]);
        await observer.publish(queues.alerts, { marker: queues.alerts });
        await alerts.until((items) => items.some((m) => m.marker === queues.alerts), 'the marker behind the alerts');
        expect(alerts.items).toHaveLength(2);
      } finally {
        await client.stop();
        await observer.stop();
      }
    });

    it('messages waiting before client.start() raise alerts that reach the alerts queue too', async () => {
      const queues = queuesFor('alerts-waiting');
      const observer = new MessageQueueProcessor({ type: 'rabbitmq', connection: E2E_RABBITMQ_URL });
      const listed = Array.from({ length: 40 }, (_, i) => `h${i}.waiting.threatlib-test.net`);
      const waitingList = join(mkdtempSync(join(tmpdir(), 'threatlib-queue-alerts-')), 'blocklist.txt');
      writeFileSync(waitingList, `${listed.join('\n')}\n`);
      const client = new ThreatClient(
        { ...offline, lists: [{ name: 'blocklist', file: waitingList }] },
        { env: false, logger: silentLogger },
      );
      const integration = registerMessageQueue(client, {
        type: 'rabbitmq',
        connection: E2E_RABBITMQ_URL,
        queues,
        prefetch: 40,
      });
      // start() returns a while after the first messages were handed over (as with a slow broker): the client counts
      // the integration started, and delivers alerts to it, only then. Handlers that ran ahead would raise alerts the
      // queue never gets; the integration holds them until then (the wait ends at once if one runs ahead).
      const consume = integration.processor.consume.bind(integration.processor);
      integration.processor.consume = async (source, handler) => {
        const subscription = await consume(source, handler);
        await eventually(() => integration.processor.stats.delivered > 0, 'a message handed over');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise((resolve) => client.events.once('correlated', resolve)),
          new Promise((resolve) => {
            timer = setTimeout(resolve, 1000);
          }),
        ]);
        clearTimeout(timer);
        return subscription;
      };
      const alerts = new Collector<Alert>();
      try {
        await Promise.all(listed.map((indicator) => observer.publish(queues.incoming, { indicator })));
        await observer.consume(queues.alerts, (m) => alerts.push(AlertSchema.parse(m.json())));
        await client.start();
        await alerts.until((items) => items.length === listed.length, 'an alert for every waiting threat', 10_000);
        expect(alerts.items.map((a) => a.indicators[0]?.value).sort()).toEqual([...listed].sort());
        await client.alerts.settled();
        const stored = (await client.alerts.list({ limit: 100 })).items;
        expect(stored.map((a) => a.deliveries.map((d) => `${d.integration}:${d.status}`))).toEqual(
          listed.map(() => ['messageQueue:delivered']),
        );
      } finally {
        await client.stop();
        await observer.stop();
      }
    });
  },
);

describeWithBroker(
  'kafka',
  'the alert of a threat read from the incoming topic is never lost before the commit',
  () => {
    const { name, topics } = uniqueTopics('kafka-alerts');
    afterAll(() => deleteKafkaTopics(Object.values(topics)));

    it('a delivery to the alerts topic that failed has the record tried again, which raises the alert again', async () => {
      // No retries of the delivery itself: its first failure is final, so the record's own retry must make up for it.
      const client = new ThreatClient(
        {
          sources: [],
          strategy: 'aggressive',
          lists: [{ name: 'blocklist', file: listFile }],
          performance: { retryAttempts: 0 },
        },
        { env: false, logger: silentLogger },
      );
      const integration = registerMessageQueue(client, {
        type: 'kafka',
        brokers: E2E_KAFKA_BROKERS,
        topics,
        groupId: name,
        sessionTimeout: 6000,
        retryDelay: 10,
      });
      // The broker refusing the first alert (a topic over its quota, a leader moving).
      const produce = integration.sendAlert.bind(integration);
      let refused = 0;
      integration.sendAlert = async (alert) => {
        if (refused === 0) {
          refused += 1;
          throw new QueueError('kafka', 'publish', `Kafka refused a record to "${topics.alerts}"`);
        }
        return produce(alert);
      };
      const observer = new MessageQueueProcessor({
        type: 'kafka',
        brokers: E2E_KAFKA_BROKERS,
        groupId: `${name}.observer`,
        sessionTimeout: 6000,
      });
      const alerts = new Collector<Record<string, unknown>>();
      const processed = new Collector<string>();
      try {
        await observer.consume(topics.alerts, (m) => alerts.push(m.json() as Record<string, unknown>));
        await observer.consume(topics.processed, (m) => processed.push(m.content));
        await client.start();
        await observer.publish(topics.incoming, { indicator: 'evil.threatlib-test.net', type: 'domain' });

        const [onTopic] = await alerts.until((items) => items.length === 1, 'the alert on the alerts topic', 30_000);
        await client.alerts.settled();
        const stored = (await client.alerts.list()).items;
        expect(stored).toHaveLength(2);
        const delivered = stored.find((a) => a.deliveries[0]?.status === 'delivered');
        const failed = stored.find((a) => a.deliveries[0]?.status === 'failed');
        expect(failed?.deliveries[0]?.lastError).toContain('Kafka refused a record');
        expect(AlertSchema.parse(onTopic).id).toBe(delivered?.id);
        // The record ran twice (its processed record is written each time: at least once) and was not dead-lettered.
        await processed.until((items) => items.length === 2, 'the processed record of each attempt', 30_000);
        expect(integration.processor.stats).toMatchObject({ retried: 1, deadLettered: 0 });
      } finally {
        await client.stop();
        await observer.stop();
      }
    }, 60_000);
  },
);
