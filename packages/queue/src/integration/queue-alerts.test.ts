import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Alert, type Integration, silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { afterAll, expect, it } from 'vitest';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import { Collector, describeWithBroker, E2E_RABBITMQ_URL, eventually, uniqueName } from '../test-support/brokers.js';
import { deleteRabbitQueues } from '../test-support/cleanup.js';

/*
 * The queue pipeline scans with the client's `correlate`, so a threat read from the incoming queue raises the
 * client's alert: stored in client.alerts and delivered to every started integration, the queue's own sendAlert
 * (which publishes it to the alerts queue) included.
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
    } finally {
      if (client.state !== 'idle') await client.stop();
      await observer.stop();
    }
  });
});
