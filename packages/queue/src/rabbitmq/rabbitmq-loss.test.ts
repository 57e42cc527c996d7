import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AlertSchema, silentLogger, ThreatClient } from '@threatlib/core';
import { afterAll, expect, it } from 'vitest';
import { registerMessageQueue } from '../integration/queue-integration.js';
import { HEADERS } from '../message/headers.js';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import type { RabbitMqOptions } from '../options/processor-options.js';
import { Collector, describeWithBroker, E2E_RABBITMQ_URL, uniqueName } from '../test-support/brokers.js';
import { deleteRabbitQueues } from '../test-support/cleanup.js';
import { makeWorkload, spawnPipeline, type Workload } from '../test-support/loss-workload.js';

const run = promisify(execFile);
const services = fileURLToPath(new URL('../../../../e2e/services', import.meta.url));

interface Outcome {
  processed: Set<string>;
  dead: Map<string, Record<string, string>>;
  /** The indicator of each alert on the alerts queue. */
  alerts: Set<string>;
  /** Messages on the alerts queue that are not one `Alert` record of one indicator. */
  strayAlerts: string[];
  /** Processed messages seen more than once (a handler that finished but whose ack was lost). */
  duplicates: number;
}

/** Watches the processed, alerts and dead-letter queues from a processor of the test's own. */
async function watch(queues: { incoming: string; processed: string; alerts: string }) {
  const observer = new MessageQueueProcessor(
    { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, prefetch: 200, reconnect: { initialDelay: 200 } },
    { logger: silentLogger },
  );
  const outcome: Outcome = { processed: new Set(), dead: new Map(), alerts: new Set(), strayAlerts: [], duplicates: 0 };
  const progress = new Collector<number>();
  const alerted = new Collector<string>();
  await observer.consume(queues.processed, (message) => {
    const { indicator } = message.json<{ indicator: string }>();
    if (outcome.processed.has(indicator)) outcome.duplicates += 1;
    outcome.processed.add(indicator);
    progress.push(1);
  });
  await observer.consume(`${queues.incoming}.dlq`, (message) => {
    outcome.dead.set(message.content, message.headers);
    progress.push(1);
  });
  // One message per alert: the client's Alert record (a threat's one indicator), nothing else.
  await observer.consume(queues.alerts, (message) => {
    const alert = AlertSchema.safeParse(message.json());
    const indicator = alert.success && alert.data.indicators.length === 1 ? alert.data.indicators[0]?.value : undefined;
    if (indicator === undefined) {
      outcome.strayAlerts.push(message.content);
      return;
    }
    outcome.alerts.add(indicator);
    alerted.push(indicator);
  });
  return { observer, outcome, progress, alerted };
}

async function send(workload: Workload, incoming: string): Promise<void> {
  const publisher = new MessageQueueProcessor(
    { type: 'rabbitmq', connection: E2E_RABBITMQ_URL },
    { logger: silentLogger },
  );
  try {
    await Promise.all(workload.bodies.map((body, i) => publisher.publish(incoming, body, { messageId: `m${i}` })));
  } finally {
    await publisher.stop();
  }
}

/**
 * Alerts arrive on their own queue, so the last ones can land just after the last processed message: wait for every
 * listed indicator's alert (bounded) before checking, so a late alert is not read as a lost one.
 */
async function alertsSettled(workload: Workload, outcome: Outcome, alerted: Collector<string>): Promise<void> {
  await alerted
    .until(
      () => [...workload.listed].every((i) => outcome.alerts.has(i)),
      'an alert for every listed indicator',
      15_000,
    )
    .catch(() => {});
}

function expectNothingLost(workload: Workload, outcome: Outcome): void {
  expect(outcome.processed.size + outcome.dead.size).toBe(workload.bodies.length);
  expect([...workload.indicators].filter((i) => !outcome.processed.has(i))).toEqual([]);
  expect([...workload.malformed].filter((m) => !outcome.dead.has(m))).toEqual([]);
  for (const headers of outcome.dead.values()) {
    expect(headers[HEADERS.reason]).toBe('unprocessable');
    expect(headers[HEADERS.error]).toMatch(
      /not JSON|invalid indicator message|Invalid indicator|expected a JSON object/,
    );
  }
  expect([...workload.listed].filter((i) => !outcome.alerts.has(i))).toEqual([]);
  expect([...outcome.alerts].filter((i) => !workload.listed.has(i))).toEqual([]);
  expect(outcome.strayAlerts).toEqual([]);
}

describeWithBroker('rabbitmq', 'the RabbitMQ pipeline loses nothing', () => {
  const names: string[] = [];
  afterAll(async () => {
    const queues = names.flatMap((n) => [`${n}.in`, `${n}.out`, `${n}.alerts`]);
    await deleteRabbitQueues(queues);
  });

  const queueOptions = (
    label: string,
  ): RabbitMqOptions & { queues: { incoming: string; processed: string; alerts: string } } => {
    const name = uniqueName(label);
    names.push(name);
    return {
      type: 'rabbitmq',
      connection: E2E_RABBITMQ_URL,
      queues: { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` },
      prefetch: 50,
      retryDelay: 50,
      reconnect: { initialDelay: 200, maxDelay: 2000 },
    };
  };

  it('10,000 messages, the consumer process SIGKILLed mid-stream and restarted: processed + dead-lettered = sent', async () => {
    const workload = makeWorkload('rmq-kill', 10_000, 100);
    const queue = queueOptions('kill');
    const { observer, outcome, progress, alerted } = await watch(queue.queues);
    try {
      await send(workload, queue.queues.incoming);
      const first = spawnPipeline(workload.config, queue);
      await first.ready;
      await progress.until((items) => items.length >= 3000, '3,000 messages handled by the first process');
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      const handledByFirst = outcome.processed.size + outcome.dead.size;
      expect(handledByFirst).toBeLessThan(workload.bodies.length);

      const second = spawnPipeline(workload.config, queue);
      await second.ready;
      await progress.until(
        () => outcome.processed.size + outcome.dead.size === workload.bodies.length,
        'every message processed or dead-lettered',
        50_000,
      );
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      await alertsSettled(workload, outcome, alerted);
      expectNothingLost(workload, outcome);
      expect(outcome.dead.size).toBe(100);
    } finally {
      await observer.stop();
    }
  }, 90_000);

  it('the broker restarted mid-stream: the processor reconnects and finishes with nothing lost', async () => {
    const workload = makeWorkload('rmq-restart', 10_000, 100);
    const queue = queueOptions('restart');
    const { observer, outcome, progress, alerted } = await watch(queue.queues);
    const client = new ThreatClient(workload.config, { env: false, logger: silentLogger });
    const integration = registerMessageQueue(client, queue);
    try {
      await send(workload, queue.queues.incoming);
      await client.start();
      await progress.until((items) => items.length >= 500, '500 messages handled before the restart');
      await run('bash', [services, 'down', 'rabbitmq']);
      expect((await integration.health()).healthy).toBe(false);
      const handledBeforeRestart = outcome.processed.size + outcome.dead.size;
      console.log(`broker restart: ${handledBeforeRestart} of ${workload.bodies.length} handled when it went down`);
      expect(handledBeforeRestart).toBeLessThan(workload.bodies.length);
      await run('bash', [services, 'up', 'rabbitmq']);
      await progress.until(
        () => outcome.processed.size + outcome.dead.size === workload.bodies.length,
        'every message processed or dead-lettered after the restart',
        60_000,
      );
      expect(integration.processor.stats.reconnections).toBeGreaterThanOrEqual(1);
      expect((await integration.health()).healthy).toBe(true);
      await alertsSettled(workload, outcome, alerted);
      expectNothingLost(workload, outcome);
    } finally {
      await client.stop();
      await observer.stop();
    }
  }, 120_000);
});
