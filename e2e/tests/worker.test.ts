// `threatlib worker` (issue 26): several worker processes consume scan requests from the configured queue with
// `cluster` on, against the feed emulator with its quota on. One is killed with SIGKILL mid-run: no message is lost
// (its unacknowledged messages, or uncommitted offsets, go to the others), no cached indicator is asked again, and the
// feed never sees more than its quota. Each broker on the e2e services; names and key prefixes unique per run.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@threatlib/core';
import { type FeedEmulator, paceOf, startFeedEmulator } from '@threatlib/feed-emulator';
import { MessageQueueProcessor } from '@threatlib/queue';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWith, eventually, servicePort, uniqueName } from './interface/support.js';

const BIN = fileURLToPath(new URL('../../packages/server/bin/threatlib.js', import.meta.url));
const E2E_DIR = fileURLToPath(new URL('..', import.meta.url));
const RABBITMQ = `amqp://guest:guest@127.0.0.1:${servicePort('rabbitmq')}`;
const KAFKA_BROKERS = [`127.0.0.1:${servicePort('kafka')}`];
const QUOTA = { requestsPerSecond: 20, burst: 5 };
const PREFETCH = 10;

/** 120 scan requests for 84 hostnames: 30% of the messages repeat an earlier one. */
function workload(label: string): string[] {
  const unique = Array.from({ length: 84 }, (_, i) => `w${i}.${label}.threatlib-worker-test.net`);
  const repeats = Array.from({ length: 36 }, (_, i) => unique[(i * 7) % unique.length] as string);
  // Each repeat after its first appearance, spread through the run.
  return [...unique.slice(0, 42), ...repeats.slice(0, 18), ...unique.slice(42), ...repeats.slice(18)];
}

class Worker {
  readonly child: ChildProcess;
  readonly started: Promise<void>;
  output = '';

  constructor(configFile: string) {
    this.child = spawn(process.execPath, [BIN, 'worker', '--config', configFile, '--profile', 'test'], {
      // The queue package is resolved from the working directory, as from an application that installed it.
      cwd: E2E_DIR,
      env: { ...process.env, THREATLIB_PROFILE: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk) => {
      this.output += chunk;
    });
    this.child.stderr?.on('data', (chunk) => {
      this.output += chunk;
    });
    this.started = eventually(() => this.output.includes('threatlib worker consuming'), 'the worker to start', 60_000);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 40_000);
    await exited;
    clearTimeout(timer);
  }
}

let emulator: FeedEmulator;
let dir: string;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  emulator = await startFeedEmulator({ quotas: { feed_urls: QUOTA }, latencyMs: 30 });
  dir = mkdtempSync(join(tmpdir(), 'threatlib-worker-'));
});
afterEach(async () => {
  for (const item of running.splice(0).reverse()) await item.stop();
  emulator.reset();
  // A worker whose feed request still hangs drains for its drainTimeout before it exits.
}, 120_000);
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The cluster key prefix of the workers of `name`. */
const keyPrefixOf = (name: string) => `threatlib-test:${name}:`;

function configFile(name: string, messageQueue: object, overrides: Record<string, unknown> = {}): string {
  const file = join(dir, `${name}.config.js`);
  const config = {
    sources: ['feed_urls'],
    apiKeys: { feed_urls: { endpoint: emulator.endpoints.feed_urls } },
    security: { enforceHttps: false },
    warninglists: { builtin: false },
    logging: { enabled: false },
    performance: {
      retryAttempts: 2,
      retryDelay: 100,
      lookupTimeout: 60_000,
      rateLimit: { perFeed: { feed_urls: { requestsPerSecond: QUOTA.requestsPerSecond, burstSize: QUOTA.burst } } },
    },
    caching: { enabled: true },
    cluster: {
      enabled: true,
      kvserver: { host: '127.0.0.1', port: servicePort('redis'), keyPrefix: keyPrefixOf(name) },
    },
    integrations: { messageQueue },
    ...overrides,
  };
  writeFileSync(file, `export default { test: ${JSON.stringify(config)} };\n`);
  return file;
}

/**
 * Starts two workers, sends the workload, kills one once a quarter is processed and starts a third, and waits until
 * every message has its processed message. Returns what the processed queue held, per indicator.
 */
async function killMidRun(
  file: string,
  send: (bodies: string[]) => Promise<void>,
  watch: (seen: (indicator: string) => void) => Promise<unknown>,
  indicators: string[],
): Promise<{ processed: Map<string, number>; killedAt: number }> {
  const processed = new Map<string, number>();
  let count = 0;
  await watch((indicator) => {
    processed.set(indicator, (processed.get(indicator) ?? 0) + 1);
    count += 1;
  });
  const workers = [new Worker(file), new Worker(file)];
  running.push(...workers);
  await Promise.all(workers.map((w) => w.started));
  await send(indicators.map((indicator) => JSON.stringify({ indicator })));
  await eventually(() => count >= indicators.length / 4, 'a quarter of the messages processed', 60_000);
  const killedAt = count;
  workers[0]?.kill();
  const third = new Worker(file);
  running.push(third);
  await third.started;
  const wanted = new Map<string, number>();
  for (const indicator of indicators) wanted.set(indicator, (wanted.get(indicator) ?? 0) + 1);
  await eventually(
    () => [...wanted].every(([indicator, n]) => (processed.get(indicator) ?? 0) >= n),
    'every message processed',
    120_000,
  );
  return { processed, killedAt };
}

/** No message lost; cached indicators not asked again; the feed's quota kept. */
function expectNothingLost(indicators: string[], processed: Map<string, number>): void {
  for (const indicator of indicators) {
    const sent = indicators.filter((i) => i === indicator).length;
    expect(processed.get(indicator) ?? 0, indicator).toBeGreaterThanOrEqual(sent);
  }
  const unique = [...new Set(indicators)];
  // Only a request the killed worker had under way (its answer never stored) may be asked again.
  const askedAgain = unique.reduce((sum, i) => sum + Math.max(0, emulator.count('feed_urls', i) - 1), 0);
  expect(askedAgain).toBeLessThanOrEqual(PREFETCH);
  for (const indicator of unique) expect(emulator.count('feed_urls', indicator), indicator).toBeGreaterThanOrEqual(1);
  expect(emulator.count('feed_urls')).toBeLessThanOrEqual(unique.length + PREFETCH);
  expect(paceOf(emulator.arrivals().feed_urls, QUOTA).overQuota).toBe(0);
  expect(emulator.stats().feeds.feed_urls.violations).toBe(0);
}

/**
 * A message redelivered after its worker was killed, whose answer that worker had already cached, is answered from the
 * shared cache: the feed is not asked again. Each message needs two feeds: `feed_urls` answers at once (and is cached),
 * `feed_otx` holds its answer, so the worker can ack nothing. It is killed then; the flights' short-lived answers are
 * removed, so only the verdict cache can spare the feed a second request; a second worker gets the redelivered
 * messages (`feed_otx` now answers).
 */
async function redeliveredFromCache(
  name: string,
  messageQueue: object,
  send: (bodies: string[]) => Promise<void>,
  watch: (seen: (indicator: string) => void) => Promise<unknown>,
  options: { sendFirst?: boolean } = {},
): Promise<void> {
  const indicators = Array.from({ length: 5 }, (_, i) => `r${i}.${name}.threatlib-worker-test.net`);
  for (const indicator of indicators) emulator.script(indicator, { behaviour: 'hang', feeds: ['feed_otx'] });
  const file = configFile(name, messageQueue, {
    sources: ['feed_urls', 'feed_otx'],
    apiKeys: {
      feed_urls: { endpoint: emulator.endpoints.feed_urls },
      feed_otx: { key: 'otx-test-key', endpoint: emulator.endpoints.feed_otx },
    },
    // feed_otx's held request must outlast the wait for the cache below, however loaded the machine.
    performance: { retryAttempts: 0, requestTimeout: 240_000, lookupTimeout: 240_000 },
  });
  const redis = createClient({ url: `redis://127.0.0.1:${servicePort('redis')}` });
  await redis.connect();
  running.push({ stop: async () => void (await redis.close()) });
  const processed: string[] = [];
  await watch((indicator) => processed.push(indicator));

  const bodies = indicators.map((indicator) => JSON.stringify({ indicator }));
  // Kafka hands a consumer a partition's records in batches, and one batch at a time: the records are all there
  // before the worker joins, so that it takes them in one batch and all of them are under way at once.
  if (options.sendFirst) await send(bodies);
  const first = new Worker(file);
  running.push(first);
  await first.started;
  if (!options.sendFirst) await send(bodies);
  // Every feed_urls answer is in the shared cache, and every feed_otx request is under way.
  const cached = async () => (await redis.keys(`${keyPrefixOf(name)}v:*`)).length;
  await eventually(async () => (await cached()) >= indicators.length, 'the feed_urls answers cached', 120_000);
  await eventually(
    () => indicators.every((i) => emulator.count('feed_otx', i) === 1),
    'every feed_otx request under way',
    120_000,
  );
  expect(processed).toEqual([]);
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.kill();
  await exited;
  const answers = await redis.keys(`${keyPrefixOf(name)}a:*`);
  if (answers.length > 0) await redis.del(answers);
  for (const indicator of indicators) emulator.script(indicator, { behaviour: 'not_found', feeds: ['feed_otx'] });

  const second = new Worker(file);
  running.push(second);
  await second.started;
  await eventually(
    () => indicators.every((i) => processed.includes(i)),
    'every redelivered message processed',
    120_000,
  );
  for (const indicator of indicators) {
    expect(emulator.count('feed_urls', indicator), `feed_urls asked about ${indicator}`).toBe(1);
    // feed_otx never answered the killed worker: asked again, once.
    expect(emulator.count('feed_otx', indicator), `feed_otx asked about ${indicator}`).toBe(2);
  }
}

describeWith(['rabbitmq', 'redis'], 'threatlib worker on RabbitMQ (competing consumers)', () => {
  it('loses no message when a worker is killed mid-run, and asks no cached indicator again', async () => {
    const name = uniqueName('worker-rabbit');
    const queues = { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
    const file = configFile(name, {
      type: 'rabbitmq',
      connection: RABBITMQ,
      queues,
      prefetch: PREFETCH,
      drainTimeout: 5000,
    });
    const client = new MessageQueueProcessor(
      { type: 'rabbitmq', connection: RABBITMQ, prefetch: 200 },
      { logger: silentLogger },
    );
    running.push(client);
    const indicators = workload(name);
    const { processed } = await killMidRun(
      file,
      async (bodies) => {
        await Promise.all(bodies.map((body, i) => client.publish(queues.incoming, body, { messageId: `m${i}` })));
      },
      (seen) => client.consume(queues.processed, (message) => seen(message.json<{ indicator: string }>().indicator)),
      indicators,
    );
    expectNothingLost(indicators, processed);
  }, 300_000);

  it('answers a message redelivered after a kill from the shared cache, without asking the feed again', async () => {
    const name = uniqueName('worker-rabbit-redelivered');
    const queues = { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
    const client = new MessageQueueProcessor(
      { type: 'rabbitmq', connection: RABBITMQ, prefetch: 200 },
      { logger: silentLogger },
    );
    running.push(client);
    await redeliveredFromCache(
      name,
      { type: 'rabbitmq', connection: RABBITMQ, queues, prefetch: PREFETCH, drainTimeout: 5000 },
      async (bodies) => {
        await Promise.all(bodies.map((body, i) => client.publish(queues.incoming, body, { messageId: `m${i}` })));
      },
      (seen) => client.consume(queues.processed, (message) => seen(message.json<{ indicator: string }>().indicator)),
    );
  }, 300_000);
});

describeWith(['kafka', 'redis'], 'threatlib worker on Kafka (a consumer group)', () => {
  it('loses no record when a worker is killed mid-run, and asks no cached indicator again', async () => {
    const name = uniqueName('worker-kafka');
    const topics = {
      incoming: `${name}.in`,
      processed: `${name}.out`,
      threats: `${name}.threats`,
      alerts: `${name}.alerts`,
    };
    const file = configFile(name, {
      type: 'kafka',
      brokers: KAFKA_BROKERS,
      topics,
      groupId: name,
      prefetch: PREFETCH,
      sessionTimeout: 6000,
      drainTimeout: 5000,
    });
    const client = new MessageQueueProcessor(
      { type: 'kafka', brokers: KAFKA_BROKERS, groupId: `${name}.watch` },
      { logger: silentLogger },
    );
    running.push(client);
    const indicators = workload(name);
    const { processed } = await killMidRun(
      file,
      async (bodies) => {
        for (const body of bodies) await client.publish(topics.incoming, body);
      },
      (seen) => client.consume(topics.processed, (message) => seen(message.json<{ indicator: string }>().indicator)),
      indicators,
    );
    expectNothingLost(indicators, processed);
  }, 300_000);

  it('answers a record redelivered after a kill from the shared cache, without asking the feed again', async () => {
    const name = uniqueName('worker-kafka-redelivered');
    const topics = {
      incoming: `${name}.in`,
      processed: `${name}.out`,
      threats: `${name}.threats`,
      alerts: `${name}.alerts`,
    };
    const client = new MessageQueueProcessor(
      { type: 'kafka', brokers: KAFKA_BROKERS, groupId: `${name}.watch` },
      { logger: silentLogger },
    );
    running.push(client);
    await redeliveredFromCache(
      name,
      {
        type: 'kafka',
        brokers: KAFKA_BROKERS,
        topics,
        groupId: name,
        prefetch: PREFETCH,
        sessionTimeout: 6000,
        drainTimeout: 5000,
      },
      async (bodies) => {
        for (const body of bodies) await client.publish(topics.incoming, body);
      },
      (seen) => client.consume(topics.processed, (message) => seen(message.json<{ indicator: string }>().indicator)),
      { sendFirst: true },
    );
  }, 300_000);
});
