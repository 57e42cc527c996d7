import { eventually } from '@threatlib/test-utils';
import { afterAll, afterEach, expect, it } from 'vitest';
import { QueueError } from '../errors/queue-error.js';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import { HEADERS } from '../message/headers.js';
import type { QueueMessage } from '../message/queue-message.js';
import type { MessageQueueProcessor } from '../message-queue-processor.js';
import { Collector, gate, uniqueName } from '../test-support/brokers.js';

/** What the compliance suite needs from a back end's test file. */
export interface QueueSuiteHarness {
  broker: 'rabbitmq' | 'kafka';
  /** A fresh, unstarted processor with the given retry options (the suite keeps delays short). */
  create(retry: { maxAttempts: number; retryDelay: number }): MessageQueueProcessor;
  /** Removes the queues or topics the suite made (each name with its `.dlq` and retry queues). */
  cleanup(names: string[]): Promise<void>;
}

/**
 * The behaviour every queue processor must show, registered under the caller's `describe`: acknowledgement only
 * after the handler resolved, retries counted in headers, dead-lettering with the reason, draining on stop.
 *
 * @example
 * ```ts
 * describeWithBroker('rabbitmq', 'RabbitMQ processor', () => {
 *   queueComplianceSuite({ broker: 'rabbitmq', create: (retry) => new MessageQueueProcessor({...}), cleanup });
 * });
 * ```
 */
export function queueComplianceSuite(harness: QueueSuiteHarness): void {
  const processors: MessageQueueProcessor[] = [];
  const names: string[] = [];
  const make = (retry = { maxAttempts: 3, retryDelay: 20 }) => {
    const processor = harness.create(retry);
    processors.push(processor);
    return processor;
  };
  const name = (label: string) => {
    const n = uniqueName(`${harness.broker}-${label}`);
    names.push(n);
    return n;
  };

  afterEach(async () => {
    await Promise.all(processors.splice(0).map((p) => p.stop()));
  });
  afterAll(async () => {
    await harness.cleanup(names.splice(0));
  });

  it('delivers what was published, as JSON, to a handler', async () => {
    const processor = make();
    const queue = name('roundtrip');
    const seen = new Collector<QueueMessage>();
    await processor.consume(queue, (message) => seen.push(message));
    await processor.publish(queue, { indicator: '198.51.100.7', type: 'ipv4' });
    const [message] = await seen.until((items) => items.length === 1, 'one message');
    expect(message?.json()).toEqual({ indicator: '198.51.100.7', type: 'ipv4' });
    // As the interface documents it: `content` is the JSON string; the bytes are kept as `raw`.
    expect(JSON.parse(message?.content ?? '')).toEqual({ indicator: '198.51.100.7', type: 'ipv4' });
    expect(message?.raw).toEqual(Buffer.from('{"indicator":"198.51.100.7","type":"ipv4"}'));
    expect(message?.attempt).toBe(1);
    expect(message?.source).toBe(queue);
  });

  it('acknowledges only after the handler resolved: an unfinished message goes to the next consumer', async () => {
    const queue = name('unacked');
    const first = make();
    const started = gate();
    await first.consume(queue, async () => {
      started.open();
      await new Promise(() => undefined); // never finishes, as if the process hung
    });
    await first.publish(queue, { n: 1 });
    await started.promise;
    // A consumer that stops while its handler still runs: drainTimeout is short in the harness options.
    await first.stop();

    const second = make();
    const seen = new Collector<QueueMessage>();
    await second.consume(queue, (message) => seen.push(message));
    const [again] = await seen.until((items) => items.length >= 1, 'the redelivered message');
    expect(again?.json()).toEqual({ n: 1 });
  });

  it('does not deliver again a message whose handler resolved', async () => {
    const queue = name('acked');
    const first = make();
    const seen = new Collector<unknown>();
    await first.consume(queue, (message) => seen.push(message.json()));
    await first.publish(queue, { n: 1 });
    await seen.until((items) => items.length === 1, 'the first message');
    await first.stop();

    const second = make();
    const later = new Collector<unknown>();
    await second.consume(queue, (message) => later.push(message.json()));
    await second.publish(queue, { n: 2 });
    await later.until((items) => items.some((i) => (i as { n: number }).n === 2), 'the second message');
    expect(later.items).toEqual([{ n: 2 }]);
  });

  it('retries a failing handler with the attempt counted, and acknowledges once it succeeds', async () => {
    const processor = make({ maxAttempts: 4, retryDelay: 20 });
    const queue = name('retry');
    const attempts = new Collector<number>();
    await processor.consume(queue, (message) => {
      attempts.push(message.attempt);
      if (message.attempt < 3) throw new Error(`transient failure ${message.attempt}`);
    });
    await processor.publish(queue, { n: 1 });
    await attempts.until((items) => items.length === 3, 'three attempts');
    expect(attempts.items).toEqual([1, 2, 3]);
    await eventually(() => processor.stats.completed === 1, 'the acknowledgement');
    expect(processor.stats).toMatchObject({ retried: 2, completed: 1, deadLettered: 0 });
  });

  it('dead-letters a message after maxAttempts failures, with the error in its headers', async () => {
    const processor = make({ maxAttempts: 3, retryDelay: 10 });
    const queue = name('exhausted');
    await processor.consume(queue, () => {
      throw new TypeError('the handler always fails');
    });
    const dead = new Collector<QueueMessage>();
    await processor.consume(`${queue}.dlq`, (message) => dead.push(message));
    await processor.publish(queue, { n: 1 });
    const [message] = await dead.until((items) => items.length === 1, 'the dead-lettered message');
    expect(message?.json()).toEqual({ n: 1 });
    expect(message?.headers).toMatchObject({
      [HEADERS.error]: 'the handler always fails',
      [HEADERS.errorName]: 'TypeError',
      [HEADERS.reason]: 'exhausted',
      [HEADERS.source]: queue,
      [HEADERS.attempts]: '3',
    });
    await eventually(() => processor.stats.deadLettered === 1, 'the dead-letter confirmation');
    expect(processor.stats).toMatchObject({ retried: 2, deadLettered: 1 });
  });

  it('dead-letters an unprocessable message at once, with the reason', async () => {
    const processor = make({ maxAttempts: 5, retryDelay: 10 });
    const queue = name('poison');
    const attempts = new Collector<number>();
    await processor.consume(queue, (message) => {
      attempts.push(message.attempt);
      message.json(); // not JSON: throws UnprocessableMessageError
    });
    const dead = new Collector<QueueMessage>();
    await processor.consume(`${queue}.dlq`, (message) => dead.push(message));
    await processor.publish(queue, 'this is not JSON');
    const [message] = await dead.until((items) => items.length === 1, 'the dead-lettered message');
    expect(message?.content).toBe('this is not JSON');
    expect(message?.headers[HEADERS.reason]).toBe('unprocessable');
    expect(message?.headers[HEADERS.error]).toMatch(/^message is not JSON/);
    expect(message?.headers[HEADERS.errorName]).toBe(new UnprocessableMessageError('x').name);
    expect(attempts.items).toEqual([1]);
  });

  it('stop() waits for the handlers still running, and what they finished is not delivered again', async () => {
    const queue = name('drain');
    const first = make();
    const started = gate();
    const release = gate();
    let finished = false;
    await first.consume(queue, async () => {
      started.open();
      await release.promise;
      finished = true;
    });
    await first.publish(queue, { n: 1 });
    await started.promise;
    const stopping = first.stop();
    release.open();
    await stopping;
    expect(finished).toBe(true);

    const second = make();
    const later = new Collector<unknown>();
    await second.consume(queue, (message) => later.push(message.json()));
    await second.publish(queue, { n: 2 });
    await later.until((items) => items.length >= 1, 'the second message');
    expect(later.items).toEqual([{ n: 2 }]);
  });

  it('refuses to publish once stopped, saying so', async () => {
    const processor = make();
    const queue = name('stopped');
    await processor.publish(queue, { n: 1 });
    await processor.stop();
    const error = await processor.publish(queue, { n: 2 }).catch((e: unknown) => e);
    expect(QueueError.isInstance(error)).toBe(true);
    expect((error as QueueError).isRetryable).toBe(false);
    expect((error as Error).message).toMatch(/stopped/);
  });
}
