// bench/queue: the queue pipeline (a client with @threatlib/queue's integration) beside a raw client loop doing the
// same work with the same durability, on RabbitMQ and on Kafka. Both sides scan every message with the same
// client.correlate (a client configured the same way, the user's mix of indicators: mostly new, some repeated, some
// threats that raise alerts) and publish the same records; the ratio measures the queue package's own overhead.
// See ../README.md ("queue") for what is measured and how to read it. Needs the e2e brokers:
//   bash e2e/services up rabbitmq kafka
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, streamEventFor, ThreatClient } from '@threatlib/core';
import { registerMessageQueue } from '@threatlib/queue';
import amqp from 'amqplib';
import kafkajs from 'kafkajs';
import { compare, fmt, indicatorMix, portOpen, setting, summarise } from '../support.mjs';

const RABBITMQ_URL = process.env.BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const KAFKA_BROKERS = (process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const RABBIT_MESSAGES = setting('BENCH_RABBIT_MESSAGES', 20_000, 400);
const KAFKA_RECORDS = setting('BENCH_KAFKA_RECORDS', 20_000, 400);
/** The processor's default prefetch (handlers at once), for both sides. */
const PREFETCH = setting('BENCH_PREFETCH', 20);
/** The client's default `enterprise.streamProcessing.batchSize` (off: a batch leaves once the last was acknowledged). */
const BATCH_SIZE = setting('BENCH_BATCH_SIZE', 100);
const ROUNDS = setting('BENCH_ROUNDS', 4, 2);
const PARTS = (process.env.BENCH_PARTS ?? 'rabbitmq,kafka').split(',').filter(Boolean);
const run = `${process.pid}-${Date.now().toString(36)}`;

const dir = mkdtempSync(join(tmpdir(), 'threatlib-bench-queue-'));

/**
 * The workload of one part: the user's mix (a fresh client per run, so nothing is cached from another run), half of
 * the messages naming their type, the threats on a local blocklist. The client asks no feed: nothing leaves the
 * machine, and the figure is the pipeline's cost, not a feed's latency.
 */
function workload(count, label) {
  const mix = indicatorMix(count, `${label}-${run}`);
  const file = join(dir, `${label}-blocklist.txt`);
  writeFileSync(file, `${mix.threats.join('\n')}\n`);
  const bodies = mix.indicators.map((indicator, i) =>
    JSON.stringify(i % 2 || indicator.startsWith('45.') ? { indicator } : { indicator, type: 'domain' }),
  );
  const config = { sources: [], strategy: 'aggressive', lists: [{ name: 'bench', file }] };
  return { bodies, config, threats: new Set(mix.threats).size };
}

/**
 * Measures from the first correlation to `done()`: connecting, declaring and (Kafka) joining the group are left out
 * for both sides. Resolves `{ms, cpuMs}` (this process's CPU: the client does all of a side's work here).
 */
function window(client) {
  let startedAt;
  let cpuAt;
  const onCorrelated = () => {
    if (startedAt !== undefined) return;
    startedAt = performance.now();
    cpuAt = process.cpuUsage();
  };
  client.events.on('correlated', onCorrelated);
  return () => {
    const ms = performance.now() - startedAt;
    const cpu = process.cpuUsage(cpuAt);
    client.events.off('correlated', onCorrelated);
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
}

/** Resolves once `condition()` holds, looking every 5 ms. */
async function until(condition) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * The raw side's alerts: the client raises an alert for each threat (the same alerting as ours, core's) and delivers
 * it to its integrations; this one, a few lines an application would write, publishes it with the raw side's own
 * durable publish. The raw loop waits for that delivery (`client.alerts.deliveryOf`) before it acknowledges or
 * commits, as ours does.
 */
function rawAlertsIntegration(publish) {
  return class RawAlerts {
    sendAlert(alert) {
      return publish(alert);
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

// --- RabbitMQ ---------------------------------------------------------------------------------------------------

/** Publishes `bodies` to `queue`, persistent, with confirms (not timed: it only fills the queue). */
async function fill(queue, bodies) {
  const connection = await amqp.connect(RABBITMQ_URL);
  const channel = await connection.createConfirmChannel();
  await channel.assertQueue(queue, { durable: true });
  for (let i = 0; i < bodies.length; i += 1) {
    if (!channel.sendToQueue(queue, Buffer.from(bodies[i]), { persistent: true, messageId: `m${i}` })) {
      await new Promise((resolve) => channel.once('drain', resolve));
    }
  }
  await channel.waitForConfirms();
  await connection.close();
}

/** Messages waiting in each queue, then deletes them all. */
async function drainQueues(names) {
  const connection = await amqp.connect(RABBITMQ_URL);
  const counts = {};
  for (const name of names) {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    counts[name] = (await channel.checkQueue(name).catch(() => ({ messageCount: Number.NaN }))).messageCount;
    await channel.deleteQueue(name).catch(() => undefined);
    await channel.close().catch(() => undefined);
  }
  await connection.close();
  return counts;
}

/**
 * Raw: one confirm channel; each message parsed, scanned with client.correlate, its `{indicator, results,
 * processedAt}` published persistent and confirmed, a threat's alert published by the client's delivery (above), then
 * acknowledged. The same prefetch.
 */
async function rawRabbit({ bodies, config }, round) {
  const base = `bench.raw.${run}.${round}`;
  const queues = { incoming: `${base}.in`, processed: `${base}.out`, alerts: `${base}.alerts` };
  await fill(queues.incoming, bodies);
  const connection = await amqp.connect(RABBITMQ_URL);
  const channel = await connection.createConfirmChannel();
  await channel.assertQueue(queues.processed, { durable: true });
  await channel.assertQueue(queues.alerts, { durable: true });
  await channel.prefetch(PREFETCH);
  const confirmed = (queue, body, options) =>
    new Promise((resolve, reject) => {
      channel.sendToQueue(queue, Buffer.from(JSON.stringify(body)), { persistent: true, ...options }, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  const client = new ThreatClient(config, { env: false, logger: silentLogger });
  client.registerIntegration(
    'rawAlerts',
    rawAlertsIntegration((alert) => confirmed(queues.alerts, alert, { messageId: alert.id })),
  );
  await client.start();
  const done = window(client);
  let handled = 0;
  let failed = 0;
  await new Promise((resolve) => {
    channel.consume(queues.incoming, async (message) => {
      if (!message) return;
      try {
        const { indicator, type } = JSON.parse(message.content.toString('utf8'));
        const correlation = await client.correlate(indicator, type ? { type } : {});
        const processed = confirmed(queues.processed, {
          indicator: correlation.indicator,
          results: correlation.results,
          processedAt: new Date().toISOString(),
        });
        if (correlation.isThreat) await Promise.all([processed, client.alerts.deliveryOf(correlation, 'rawAlerts')]);
        else await processed;
        channel.ack(message);
      } catch {
        failed += 1;
        channel.nack(message, false, false);
      }
      handled += 1;
      if (handled === bodies.length) resolve();
    });
  });
  const measured = done();
  await client.stop();
  await connection.close();
  const counts = await drainQueues(Object.values(queues));
  return { ops: bodies.length, ...measured, note: `alerts published ${counts[queues.alerts]}, failed ${failed}` };
}

/** Ours: a client with the queue integration, the same prefetch; the messages are in the queue before it starts. */
async function oursRabbit({ bodies, config }, round) {
  const base = `bench.ours.${run}.${round}`;
  const queues = { incoming: `${base}.in`, processed: `${base}.out`, alerts: `${base}.alerts` };
  await fill(queues.incoming, bodies);
  const client = new ThreatClient(config, { env: false, logger: silentLogger });
  const integration = registerMessageQueue(client, {
    type: 'rabbitmq',
    connection: RABBITMQ_URL,
    queues,
    prefetch: PREFETCH,
  });
  const done = window(client);
  await client.start();
  const { processor } = integration;
  // `stats` is a snapshot: read it anew each time.
  await until(() => processor.stats.completed + processor.stats.deadLettered >= bodies.length);
  const measured = done();
  const { deadLettered } = processor.stats;
  await client.stop();
  const counts = await drainQueues([...Object.values(queues), `${queues.incoming}.dlq`]);
  return {
    ops: bodies.length,
    ...measured,
    note: `alerts published ${counts[queues.alerts]}, dead-lettered ${deadLettered}`,
  };
}

// --- Kafka ------------------------------------------------------------------------------------------------------

const kafka = () =>
  new kafkajs.Kafka({ clientId: 'bench', brokers: KAFKA_BROKERS, logLevel: kafkajs.logLevel.NOTHING });

function topicsOf(base) {
  return {
    incoming: `${base}.in`,
    processed: `${base}.processed`,
    threats: `${base}.threats`,
    alerts: `${base}.alerts`,
  };
}

/** Creates the topics and produces `bodies` to the incoming one (not timed). */
async function fillTopic(topics, bodies) {
  const admin = kafka().admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: Object.values(topics).map((topic) => ({ topic })) });
  await admin.disconnect();
  const producer = kafka().producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let i = 0; i < bodies.length; i += 1_000) {
    await producer.send({
      topic: topics.incoming,
      acks: -1,
      messages: bodies.slice(i, i + 1_000).map((value) => ({ value })),
    });
  }
  await producer.disconnect();
}

/** Records in each topic, the committed offset of `groupId` on the incoming one; then deletes the topics. */
async function drainTopics(topics, groupId) {
  const admin = kafka().admin();
  await admin.connect();
  const counts = {};
  for (const [name, topic] of Object.entries(topics)) {
    const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
    counts[name] = offsets.reduce((sum, p) => sum + Number(p.high), 0);
  }
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topics.incoming] }).catch(() => []);
  counts.committed = (committed?.partitions ?? []).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
  await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
  await admin.deleteGroups([groupId]).catch(() => undefined);
  await admin.disconnect();
  return counts;
}

/**
 * The raw side's producer: records wait in a list and leave in one `sendBatch` (at most BATCH_SIZE) as soon as the
 * last one was acknowledged, so the next batch builds while one is sent (what ours does with the client's default
 * `streamProcessing`, off); each `add` resolves once its batch was acknowledged. Idempotent, acks from all replicas.
 */
function rawBatcher(producer) {
  let waiting = [];
  let sending = false;
  const next = () => {
    if (sending || waiting.length === 0) return;
    const batch = waiting.slice(0, BATCH_SIZE);
    waiting = waiting.slice(BATCH_SIZE);
    sending = true;
    const byTopic = new Map();
    for (const { topic, message } of batch) {
      if (!byTopic.has(topic)) byTopic.set(topic, []);
      byTopic.get(topic).push(message);
    }
    producer
      .sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) })
      .then(
        () => {
          for (const waiting of batch) waiting.resolve();
        },
        (error) => {
          for (const waiting of batch) waiting.reject(error);
        },
      )
      .finally(() => {
        sending = false;
        next();
      });
  };
  return (topic, key, value) =>
    new Promise((resolve, reject) => {
      waiting.push({ topic, message: { key, value: JSON.stringify(value) }, resolve, reject });
      next();
    });
}

/**
 * Raw: a kafkajs consumer (eachBatch, PREFETCH records of a partition at a time, offsets committed once handled) and
 * an idempotent producer: each record scanned with client.correlate, `{indicator, results, processedAt}` produced to
 * `processed`, a threat's stream event to `threats` and its alert (the client's delivery, above) to `alerts`, all
 * acknowledged before the offset is committed.
 */
async function rawKafka({ bodies, config }, round) {
  const topics = topicsOf(`bench.raw.${run}.${round}`);
  const groupId = `bench-raw-${run}-${round}`;
  await fillTopic(topics, bodies);
  const producer = kafka().producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const send = rawBatcher(producer);
  const client = new ThreatClient(config, { env: false, logger: silentLogger });
  client.registerIntegration(
    'rawAlerts',
    rawAlertsIntegration((alert) => send(topics.alerts, alert.id, alert)),
  );
  await client.start();
  const done = window(client);
  let handled = 0;
  let finish;
  const finished = new Promise((resolve) => {
    finish = resolve;
  });
  const handle = async (record) => {
    const { indicator, type } = JSON.parse(record.value.toString('utf8'));
    const correlation = await client.correlate(indicator, type ? { type } : {});
    const at = Date.now();
    const processed = send(topics.processed, correlation.indicator, {
      indicator: correlation.indicator,
      results: correlation.results,
      processedAt: new Date(at).toISOString(),
    });
    if (!correlation.isThreat) return processed;
    await Promise.all([
      processed,
      send(topics.threats, correlation.indicator, streamEventFor(correlation, at)),
      client.alerts.deliveryOf(correlation, 'rawAlerts'),
    ]);
  };
  const consumer = kafka().consumer({ groupId, maxWaitTimeInMs: 250 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.incoming], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 4,
    eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
      const active = new Set();
      for (const record of batch.messages) {
        const task = handle(record).then(() => {
          handled += 1;
        });
        active.add(task);
        void task.finally(() => active.delete(task));
        if (active.size >= PREFETCH) await Promise.race(active);
        await heartbeat();
      }
      await Promise.all(active);
      const last = batch.messages.at(-1);
      if (last) {
        resolveOffset(last.offset);
        await consumer.commitOffsets([
          { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
        ]);
      }
      if (handled >= bodies.length) finish();
    },
  });
  await finished;
  const measured = done();
  await consumer.disconnect();
  await client.stop();
  await producer.disconnect();
  const counts = await drainTopics(topics, groupId);
  return { ops: bodies.length, ...measured, note: kafkaNote(counts) };
}

const kafkaNote = (counts) =>
  `processed ${counts.processed}, stream events ${counts.threats}, alerts published ${counts.alerts}, offsets committed ${counts.committed}`;

/** Ours: a client with the queue integration on Kafka, its defaults (the same prefetch and batching as raw). */
async function oursKafka({ bodies, config }, round) {
  const topics = topicsOf(`bench.ours.${run}.${round}`);
  const groupId = `bench-ours-${run}-${round}`;
  await fillTopic(topics, bodies);
  const client = new ThreatClient(config, { env: false, logger: silentLogger });
  const integration = registerMessageQueue(client, {
    type: 'kafka',
    brokers: KAFKA_BROKERS,
    clientId: 'bench-ours',
    groupId,
    topics,
    prefetch: PREFETCH,
  });
  const done = window(client);
  await client.start();
  const { processor } = integration;
  // `stats` is a snapshot: read it anew each time.
  await until(() => processor.stats.completed + processor.stats.deadLettered >= bodies.length);
  const measured = done();
  await client.stop();
  // Its consumer group is `<groupId>.<topic>`.
  const counts = await drainTopics(topics, `${groupId}.${topics.incoming}`);
  return { ops: bodies.length, ...measured, note: kafkaNote(counts) };
}

// --- main -------------------------------------------------------------------------------------------------------

async function main() {
  const [rabbitUp, kafkaUp] = await Promise.all([portOpen(5672), portOpen(9092)]);
  if ((PARTS.includes('rabbitmq') && !rabbitUp) || (PARTS.includes('kafka') && !kafkaUp)) {
    console.error('bench/queue needs RabbitMQ on 127.0.0.1:5672 and Kafka on 127.0.0.1:9092:');
    console.error('  bash e2e/services up rabbitmq kafka');
    process.exit(1);
  }
  console.log(
    `queue benchmark: prefetch ${PREFETCH}, ${ROUNDS} rounds (ABBA) after a warm-up of each; CPU is this process's ` +
      "(the client does all of a side's work), from the first correlation to the last message handled",
  );
  if (PARTS.includes('rabbitmq')) {
    const load = workload(RABBIT_MESSAGES, 'rabbit');
    console.log(
      `\nRabbitMQ: ${fmt(RABBIT_MESSAGES)} messages of the user's mix (${fmt(load.threats)} distinct threats, each ` +
        'raising an alert), durable queues, persistent messages, publisher confirms, ack after both',
    );
    const rounds = await compare({
      sides: { ours: (round) => oursRabbit(load, round), raw: (round) => rawRabbit(load, round) },
      rounds: ROUNDS,
      unit: 'msg',
      label: (name) => (name === 'ours' ? 'ours: the queue integration' : 'raw: amqplib loop, same client.correlate'),
    });
    summarise({ rounds, side: 'ours', baseline: 'raw', unit: 'msg', goal: 'queue/rabbitmq', title: 'RabbitMQ' });
  }
  if (PARTS.includes('kafka')) {
    const load = workload(KAFKA_RECORDS, 'kafka');
    console.log(
      `\nKafka: ${fmt(KAFKA_RECORDS)} records of the user's mix (${fmt(load.threats)} distinct threats), idempotent ` +
        `producers (acks all), batches of up to ${BATCH_SIZE} sent as soon as the last was acknowledged (both), ` +
        'offsets committed once handled',
    );
    const rounds = await compare({
      sides: { ours: (round) => oursKafka(load, round), raw: (round) => rawKafka(load, round) },
      rounds: ROUNDS,
      unit: 'rec',
      label: (name) => (name === 'ours' ? 'ours: the queue integration' : 'raw: kafkajs loop, same client.correlate'),
    });
    summarise({ rounds, side: 'ours', baseline: 'raw', unit: 'rec', goal: 'queue/kafka', title: 'Kafka' });
  }
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
