// bench/queue: the queue pipeline's throughput beside a raw client loop doing the same broker work, in one run.
// See ../README.md ("queue") for what is measured and how to read it. Needs the e2e brokers:
//   bash e2e/services up rabbitmq kafka
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, ThreatClient } from '@threatlib/core';
import { MessageQueueProcessor, registerMessageQueue } from '@threatlib/queue';
import amqp from 'amqplib';
import kafkajs from 'kafkajs';
import { fmt, portOpen } from '../support.mjs';

const RABBITMQ_URL = process.env.BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const KAFKA_BROKERS = (process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const RABBIT_MESSAGES = Number(process.env.BENCH_RABBIT_MESSAGES ?? 20_000);
const KAFKA_RECORDS = Number(process.env.BENCH_KAFKA_RECORDS ?? 100_000);
const PREFETCH = Number(process.env.BENCH_PREFETCH ?? 50);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 500);
const FLUSH_INTERVAL = Number(process.env.BENCH_FLUSH_INTERVAL ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const run = `${process.pid}-${Date.now().toString(36)}`;

const rate = (count, ms) => (count / ms) * 1000;

/** Publishes `bodies` to `queue` with confirms (not timed: it only fills the queue). */
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

async function dropQueues(names) {
  const connection = await amqp.connect(RABBITMQ_URL);
  for (const name of names) {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    await channel.deleteQueue(name).catch(() => undefined);
    await channel.close().catch(() => undefined);
  }
  await connection.close();
}

/** The raw loop: consume with the same prefetch, publish the result with a confirm, then ack. */
async function rawRabbit(bodies, round) {
  const incoming = `bench.raw.${run}.${round}.in`;
  const processed = `bench.raw.${run}.${round}.out`;
  await fill(incoming, bodies);
  const connection = await amqp.connect(RABBITMQ_URL);
  const channel = await connection.createConfirmChannel();
  await channel.assertQueue(processed, { durable: true });
  await channel.prefetch(PREFETCH);
  let done = 0;
  const started = performance.now();
  await new Promise((resolve, reject) => {
    channel.consume(incoming, (message) => {
      if (!message) return;
      const { indicator } = JSON.parse(message.content.toString('utf8'));
      const body = Buffer.from(JSON.stringify({ indicator, results: [], processedAt: new Date().toISOString() }));
      channel.sendToQueue(processed, body, { persistent: true }, (error) => {
        if (error) return reject(error);
        channel.ack(message);
        done += 1;
        if (done === bodies.length) resolve();
      });
    });
  });
  const ms = performance.now() - started;
  await connection.close();
  await dropQueues([incoming, processed]);
  return rate(done, ms);
}

/** The pipeline: a client with the queue integration; every message is scanned (warm) and its result published. */
async function oursRabbit(bodies, config, round) {
  const base = `bench.ours.${run}.${round}`;
  const queues = { incoming: `${base}.in`, processed: `${base}.out`, alerts: `${base}.alerts` };
  await fill(queues.incoming, bodies);
  const client = new ThreatClient(config, { env: false, logger: silentLogger });
  // Warm cache: every indicator scanned once before the timed run.
  for (const body of bodies) await client.correlate(JSON.parse(body).indicator);
  const integration = registerMessageQueue(client, {
    type: 'rabbitmq',
    connection: RABBITMQ_URL,
    queues,
    prefetch: PREFETCH,
  });
  const started = performance.now();
  await client.start();
  const { processor } = integration;
  while (processor.stats.completed + processor.stats.deadLettered < bodies.length) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const ms = performance.now() - started;
  const threats = processor.stats.published - bodies.length;
  await client.stop();
  await dropQueues([queues.incoming, queues.processed, queues.alerts, `${queues.incoming}.dlq`]);
  return { rate: rate(bodies.length, ms), threats };
}

function threatValue(i) {
  return {
    indicator: `h${i}.${run}.bench.threatlib.net`,
    threatLevel: 'high',
    sources: ['list:bench'],
    timestamp: Date.now(),
  };
}

async function rawKafka(topic) {
  const kafka = new kafkajs.Kafka({
    clientId: 'bench-raw',
    brokers: KAFKA_BROKERS,
    logLevel: kafkajs.logLevel.NOTHING,
  });
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  // The topic exists before the timed run, as it does for ours (created by a first record).
  await producer.send({ topic, acks: -1, messages: [{ value: 'warm-up' }] });
  const started = performance.now();
  for (let i = 0; i < KAFKA_RECORDS; i += BATCH_SIZE) {
    const messages = [];
    for (let j = i; j < Math.min(KAFKA_RECORDS, i + BATCH_SIZE); j += 1) {
      const value = threatValue(j);
      messages.push({ key: value.indicator, value: JSON.stringify(value) });
    }
    await producer.send({ topic, acks: -1, messages });
  }
  const ms = performance.now() - started;
  await producer.disconnect();
  return rate(KAFKA_RECORDS, ms);
}

async function oursKafka(topic) {
  const processor = new MessageQueueProcessor(
    {
      type: 'kafka',
      brokers: KAFKA_BROKERS,
      clientId: 'bench-ours',
      streamProcessing: { enabled: true, batchSize: BATCH_SIZE, flushInterval: FLUSH_INTERVAL },
    },
    { logger: silentLogger },
  );
  await processor.start();
  await processor.publish(topic, 'warm-up');
  // As a stream would: records produced as they come, with at most four batches' worth awaiting acknowledgement.
  const window = BATCH_SIZE * 4;
  const pending = new Array(window);
  const started = performance.now();
  for (let i = 0; i < KAFKA_RECORDS; i += 1) {
    if (i >= window) await pending[i % window];
    const value = threatValue(i);
    pending[i % window] = processor.produce(topic, { key: value.indicator, value });
  }
  await Promise.all(pending);
  const ms = performance.now() - started;
  await processor.stop();
  return rate(KAFKA_RECORDS, ms);
}

async function dropTopics(topics) {
  const admin = new kafkajs.Kafka({ brokers: KAFKA_BROKERS, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
}

async function main() {
  const [rabbitUp, kafkaUp] = await Promise.all([portOpen(5672), portOpen(9092)]);
  if (!rabbitUp || !kafkaUp) {
    console.error('bench/queue needs RabbitMQ on 127.0.0.1:5672 and Kafka on 127.0.0.1:9092:');
    console.error('  bash e2e/services up rabbitmq kafka');
    process.exit(1);
  }

  // RabbitMQ workload: unique domains, every tenth on a local blocklist (so some results are threats and raise
  // alerts); the client asks no feed, so nothing leaves the machine.
  const dir = mkdtempSync(join(tmpdir(), 'threatlib-bench-queue-'));
  const indicators = Array.from({ length: RABBIT_MESSAGES }, (_, i) => `h${i}.${run}.bench.threatlib.net`);
  writeFileSync(join(dir, 'blocklist.txt'), `${indicators.filter((_, i) => i % 10 === 0).join('\n')}\n`);
  const config = {
    sources: [],
    strategy: 'aggressive',
    lists: [{ name: 'bench', file: join(dir, 'blocklist.txt') }],
  };
  const bodies = indicators.map((indicator, i) =>
    JSON.stringify(i % 2 ? { indicator } : { indicator, type: 'domain' }),
  );

  console.log(`RabbitMQ: ${fmt(RABBIT_MESSAGES)} messages, prefetch ${PREFETCH}, best of ${ROUNDS} rounds`);
  const raw = [];
  const ours = [];
  let threats = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    raw.push(await rawRabbit(bodies, round));
    const result = await oursRabbit(bodies, config, round);
    ours.push(result.rate);
    threats = result.threats;
    console.log(`  round ${round + 1}: raw ${fmt(raw[round])} msg/s, pipeline ${fmt(ours[round])} msg/s`);
  }
  const rawBest = Math.max(...raw);
  const oursBest = Math.max(...ours);
  console.log(`  raw amqplib consume→publish(confirm)→ack   ${fmt(rawBest)} msg/s`);
  console.log(`  pipeline (scan + processed + alerts)        ${fmt(oursBest)} msg/s (${fmt(threats)} alerts)`);
  console.log(`  ratio pipeline / raw                        ${(oursBest / rawBest).toFixed(2)} (goal >= 0.70)`);

  console.log(
    `Kafka: ${fmt(KAFKA_RECORDS)} threat records, batches of ${BATCH_SIZE} (flush ${FLUSH_INTERVAL} ms), idempotent, best of ${ROUNDS}`,
  );
  const rawK = [];
  const oursK = [];
  const topics = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const rawTopic = `bench.raw.${run}.${round}.threats`;
    const oursTopic = `bench.ours.${run}.${round}.threats`;
    topics.push(rawTopic, oursTopic);
    rawK.push(await rawKafka(rawTopic));
    oursK.push(await oursKafka(oursTopic));
    console.log(`  round ${round + 1}: raw ${fmt(rawK[round])} records/s, processor ${fmt(oursK[round])} records/s`);
  }
  await dropTopics(topics);
  const rawKBest = Math.max(...rawK);
  const oursKBest = Math.max(...oursK);
  console.log(`  raw kafkajs producer.send per batch         ${fmt(rawKBest)} records/s`);
  console.log(`  processor.produce (validated, batched)      ${fmt(oursKBest)} records/s`);
  console.log(`  ratio processor / raw                       ${(oursKBest / rawKBest).toFixed(2)} (goal >= 0.70)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
