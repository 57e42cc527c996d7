import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Alert,
  AlertSchema,
  severityForRiskScore,
  silentLogger,
  ThreatClient,
  type ThreatConfig,
} from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import { afterEach, describe, expect, it } from 'vitest';
import { QueueError } from '../errors/queue-error.js';
import type { PublishOptions } from '../message/backend.js';
import { createQueueMessage } from '../message/queue-message.js';
import type { MessageQueueProcessor } from '../message-queue-processor.js';
import { type MessageQueueOptions, parseProcessorOptions } from '../options/processor-options.js';
import { createIndicatorPipeline } from './indicator-pipeline.js';

/*
 * The pipeline's writes for a threat, without a broker: a processor that records what is published, and a real
 * client scanning offline (a local blocklist).
 */

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-pipeline-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
const EVIL = 'evil.threatlib-test.net';
const offline = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
  performance: { retryDelay: 2 },
} satisfies ThreatConfig;
const queues = { incoming: 'in', processed: 'out', alerts: 'alerts' };

const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
});

function client(config: Partial<ThreatConfig> = {}): ThreatClient {
  const made = new ThreatClient({ ...offline, ...config } as ThreatConfig, { env: false, logger: silentLogger });
  clients.push(made);
  return made;
}

interface Written {
  destination: string;
  payload: Record<string, unknown>;
  options: PublishOptions;
}

/** A processor that records what it is asked to publish or produce, and confirms it at once. */
function recordingProcessor(options: MessageQueueOptions = { type: 'rabbitmq', queues }) {
  const written: Written[] = [];
  const record = async (destination: string, payload: unknown, options: PublishOptions = {}) => {
    written.push({ destination, payload: JSON.parse(JSON.stringify(payload)), options });
  };
  const processor = {
    options: parseProcessorOptions(options),
    publish: record,
    produce: async (topic: string, { key, value }: { key?: string; value: unknown }) =>
      record(topic, value, key === undefined ? {} : { key }),
  } as unknown as MessageQueueProcessor;
  return { processor, written, to: (destination: string) => written.filter((w) => w.destination === destination) };
}

let ids = 0;
function message(body: unknown) {
  ids += 1;
  return createQueueMessage({
    source: queues.incoming,
    raw: Buffer.from(JSON.stringify(body)),
    headers: {},
    attempt: 1,
    id: `m${ids}`,
    key: undefined,
  });
}

/** The queue integration as the client sees it: `sendAlert` refuses its first `failures` alerts. */
function queueIntegration(failures: number) {
  return class Queue implements Integration {
    static received: Alert[] = [];
    static calls = 0;
    readonly retries = 0;
    sendAlert = async (alert: Alert) => {
      Queue.calls += 1;
      if (Queue.calls <= failures) throw new Error('RabbitMQ did not confirm a message to "alerts"');
      Queue.received.push(alert);
      return { queue: queues.alerts };
    };
    enrichIndicator = async () => undefined;
  };
}

describe('createIndicatorPipeline on its own (no client delivers alerts to the processor)', () => {
  it('publishes one Alert record for a threat, the same record the client raises, and none for a clean indicator', async () => {
    const c = client();
    const { processor, to } = recordingProcessor();
    const handle = createIndicatorPipeline(c, processor);
    await handle(message({ indicator: EVIL, type: 'domain' }));
    await handle(message({ indicator: 'fine.threatlib-test.net' }));

    expect(to(queues.processed).map((w) => w.payload.indicator)).toEqual([EVIL, 'fine.threatlib-test.net']);
    // A result names the message it answers by its messageId, with no headers table (issue 27: one less per message).
    expect(to(queues.processed).map((w) => w.options)).toStrictEqual([
      { key: EVIL, messageId: `m${ids - 1}` },
      { key: 'fine.threatlib-test.net', messageId: `m${ids}` },
    ]);
    const alerts = to(queues.alerts);
    expect(alerts).toHaveLength(1);
    const published = AlertSchema.parse(alerts[0]?.payload);
    const correlation = await c.correlate(EVIL);
    expect(published).toMatchObject({
      severity: severityForRiskScore(correlation.riskScore),
      riskScore: correlation.riskScore,
      indicators: [{ type: 'domain', value: EVIL, confidence: correlation.confidence, sources: ['list:blocklist'] }],
    });
    expect(alerts[0]?.options).toMatchObject({ messageId: published.id, headers: { 'x-threatlib-source-id': 'm1' } });

    // The client's own alert for the same threat has the same fields (its id, time and description aside).
    await c.alerts.settled();
    const [raised] = (await c.alerts.list()).items;
    const comparable = ({ id, timestamp, deliveries, description, ...rest }: Alert) => rest;
    expect(comparable(published)).toEqual(comparable(raised as Alert));
  });
});

describe('createIndicatorPipeline with alertsDeliveredAs (the client delivers its alerts to the processor)', () => {
  it('publishes no alert itself and acknowledges a threat once the alert reached the queue', async () => {
    const Queue = queueIntegration(0);
    const c = client();
    c.registerIntegration('messageQueue', Queue);
    await c.start();
    const { processor, to } = recordingProcessor();
    const handle = createIndicatorPipeline(c, processor, { alertsDeliveredAs: 'messageQueue' });

    await handle(message({ indicator: EVIL, type: 'domain' }));
    expect(to(queues.alerts)).toEqual([]);
    expect(to(queues.processed)).toHaveLength(1);
    // Resolved only after the delivery ended: the alert is already with the integration, and recorded delivered.
    const [alert] = (await c.alerts.list()).items;
    expect(Queue.received.map((a) => a.id)).toEqual([alert?.id]);
    expect(alert?.deliveries).toEqual([expect.objectContaining({ integration: 'messageQueue', status: 'delivered' })]);
  });

  it('throws when the delivery failed, so the message is tried again, and the retry raises the alert again', async () => {
    const Queue = queueIntegration(1);
    const c = client();
    c.registerIntegration('messageQueue', Queue);
    await c.start();
    const { processor } = recordingProcessor();
    const handle = createIndicatorPipeline(c, processor, { alertsDeliveredAs: 'messageQueue' });
    const incoming = message({ indicator: EVIL, type: 'domain' });

    const failure = await Promise.resolve(handle(incoming)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(QueueError.isInstance(failure)).toBe(true);
    expect((failure as QueueError).isRetryable).toBe(true);
    expect((failure as Error).message).toBe(
      `The alert for ${EVIL} did not reach the alerts queue "alerts" (failed after 1 attempt(s): ` +
        'RabbitMQ did not confirm a message to "alerts"); the message is tried again',
    );
    expect(Queue.received).toEqual([]);

    await handle(incoming);
    expect(Queue.received).toHaveLength(1);
  });

  it('a duplicate within alerting.dedupeWindowMs adds no alert; dedupeWindowMs: 0 gives one per threat', async () => {
    const Deduped = queueIntegration(0);
    const c = client();
    c.registerIntegration('messageQueue', Deduped);
    await c.start();
    const { processor, to } = recordingProcessor();
    const handle = createIndicatorPipeline(c, processor, { alertsDeliveredAs: 'messageQueue' });
    await Promise.all([handle(message({ indicator: EVIL })), handle(message({ indicator: EVIL }))]);
    await handle(message({ indicator: EVIL }));
    expect(to(queues.processed)).toHaveLength(3);
    expect(Deduped.received).toHaveLength(1);

    const Each = queueIntegration(0);
    const every = client({ alerting: { dedupeWindowMs: 0 } });
    every.registerIntegration('messageQueue', Each);
    await every.start();
    const each = createIndicatorPipeline(every, recordingProcessor().processor, { alertsDeliveredAs: 'messageQueue' });
    await each(message({ indicator: EVIL }));
    await each(message({ indicator: EVIL }));
    expect(Each.received).toHaveLength(2);
  });

  it('refuses a client without alerts.deliveryOf', () => {
    const { processor } = recordingProcessor();
    expect(() =>
      createIndicatorPipeline({ correlate: client().correlate.bind(client()) }, processor, {
        alertsDeliveredAs: 'messageQueue',
      }),
    ).toThrow(/alertsDeliveredAs needs the client whose alerts are delivered to the processor/);
  });
});

describe('createIndicatorPipeline on Kafka', () => {
  it('produces the stream event to the threats topic and publishes no alert itself', async () => {
    const Queue = queueIntegration(0);
    const c = client();
    c.registerIntegration('messageQueue', Queue);
    await c.start();
    const topics = { incoming: 'in', processed: 'out', threats: 'threats', alerts: 'alerts' };
    const { processor, written } = recordingProcessor({ type: 'kafka', brokers: ['127.0.0.1:9092'], topics });
    await createIndicatorPipeline(c, processor, { alertsDeliveredAs: 'messageQueue' })(message({ indicator: EVIL }));
    expect(written.map((w) => w.destination).sort()).toEqual(['out', 'threats']);
    expect(Object.keys(written.find((w) => w.destination === 'threats')?.payload ?? {}).sort()).toEqual([
      'indicator',
      'sources',
      'threatLevel',
      'timestamp',
    ]);
  });
});
