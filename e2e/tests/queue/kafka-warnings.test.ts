// No warning reaches a user's terminal in normal use of the Kafka processor. kafkajs 2.2.4 (unmaintained) made a
// negative timer on every idle connection, which Node.js 24 reports as TimeoutNegativeWarning on stderr
// (packages/queue/src/kafka/request-queue-schedule.ts). A separate Node process, as an application is, consumes a
// topic of the e2e Kafka, publishes one record to it, receives it and stops; its stderr must stay empty.
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { run } from '../consumer/consumer-project.js';
import { describeWith, uniqueName } from '../interface/support.js';

const E2E = fileURLToPath(new URL('../../', import.meta.url));

describeWith(['kafka'], '@threatlib/queue on Kafka, in a process of its own', () => {
  it('consumes, publishes and stops without printing any warning', async () => {
    const topic = uniqueName('no-warnings');
    const script = `
      import { createRequire } from 'node:module';
      import { MessageQueueProcessor } from '@threatlib/queue';
      const topic = process.env.TOPIC;
      const kafka = new MessageQueueProcessor({ type: 'kafka', brokers: ['127.0.0.1:9092'], sessionTimeout: 6000, drainTimeout: 500 });
      let received;
      const done = new Promise((resolve) => (received = resolve));
      await kafka.consume(topic, async (message) => received(message.content));
      await kafka.publish(topic, { indicator: '198.51.100.4' });
      console.log(await done);
      await kafka.stop();
      // The topic of this run goes, with kafkajs as @threatlib/queue has it.
      const { Kafka, logLevel } = createRequire(import.meta.resolve('@threatlib/queue'))('kafkajs');
      const admin = new Kafka({ brokers: ['127.0.0.1:9092'], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();`;
    const outcome = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: E2E,
      env: { ...process.env, TOPIC: topic },
      timeoutMs: 90_000,
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout.trim()).toBe('{"indicator":"198.51.100.4"}');
    expect(outcome.stderr).toBe('');
  }, 120_000);
});
