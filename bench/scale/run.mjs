// Scale benchmark (issue 26): 1, 2 and 4 `threatlib worker` processes with `cluster` on (Redis from e2e/services)
// consume 20,000 scan requests (30% repeated) from RabbitMQ (or Kafka, BENCH_BROKER=kafka) against the feed emulator
// with its quotas on; then 4 workers again with one killed by SIGKILL a quarter of the way through. It prints, per
// worker count, throughput, wall time over the quota's lower bound, quota violations (the emulator's and recomputed
// from each feed's arrival log), duplicate feed requests, messages lost, and the workers' CPU time per indicator.
// It never judges by exit code: 0 when it ran to the end, 1 when something crashed. See ../README.md, "scale".
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@threatlib/core';
import { mulberry32, paceOf, startFeedEmulator } from '@threatlib/feed-emulator';
import { MessageQueueProcessor } from '@threatlib/queue';
import amqp from 'amqplib';
import { Kafka, logLevel } from 'kafkajs';
import { fmt, median, portOpen, printFigure } from '../support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = fileURLToPath(new URL('../../packages/server/bin/threatlib.js', import.meta.url));
const QUICK = process.argv.includes('--quick');
const BROKER = process.env.BENCH_BROKER ?? 'rabbitmq';
const TOTAL = Number(process.env.BENCH_SCALE_INDICATORS ?? (QUICK ? 2000 : 20_000));
const REPEAT_SHARE = 0.3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const WORKER_COUNTS = [1, 2, 4];
const LATENCY_MS = 25;
/**
 * Each feed's quota at the emulator, and the client's per-feed rate limit (equal, as a user configures it). The full
 * run's 60/s is a quota that binds on a two-core machine (the case the 4-over-1 goal is about: more workers must not
 * be slower than the quotas allow); at 250/s the CPU binds first there, and the ratio measures the cores, not the
 * cluster. The quick check keeps 250/s so that it stays short.
 */
const QUOTA = { requestsPerSecond: Number(process.env.BENCH_SCALE_RATE ?? (QUICK ? 250 : 60)), burst: 50 };
const PREFETCH = 50;
const MAX_CONCURRENCY = 50;
const REDIS = { host: '127.0.0.1', port: 16379 };
const RABBITMQ = 'amqp://guest:guest@127.0.0.1:5672';
const KAFKA = ['127.0.0.1:9092'];
/** A run that has not finished by then counts as crashed. */
const RUN_DEADLINE_MS = Number(process.env.BENCH_DEADLINE_S ?? 900) * 1000;
const FEEDS = ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'];
const IP_FEEDS = FEEDS;
const HOST_FEEDS = ['feed_urls', 'feed_otx', 'feed_scan'];
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

// ---------------------------------------------------------------------------------------------------------------
// Input: half addresses, half hostnames; 30% of the messages repeat an earlier indicator; a seeded order.

function buildInput() {
  const random = mulberry32(26);
  const unique = Math.round(TOTAL * (1 - REPEAT_SHARE));
  const values = [];
  for (let i = 0; i < unique; i++) {
    values.push(
      i % 2 === 0 ? `45.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255 || 1}` : `h${i}.scale-bench.threatlib.net`,
    );
  }
  const out = [];
  const seen = [];
  let next = 0;
  for (let i = 0; i < TOTAL; i++) {
    const repeat = seen.length > 0 && (next >= values.length || random() < REPEAT_SHARE);
    if (repeat) out.push(seen[Math.floor(random() * seen.length)]);
    else {
      out.push(values[next]);
      seen.push(values[next]);
      next += 1;
    }
  }
  return out;
}

/** Unique (feed, indicator) pairs per feed: what a perfect cluster sends. */
function pairsOf(indicators) {
  const perFeed = Object.fromEntries(FEEDS.map((feed) => [feed, 0]));
  for (const value of new Set(indicators)) {
    for (const feed of value.startsWith('h') ? HOST_FEEDS : IP_FEEDS) perFeed[feed] += 1;
  }
  return { perFeed, total: Object.values(perFeed).reduce((a, b) => a + b, 0) };
}

/** The least wall time any client needs without breaking a quota or the concurrency (as bench:scan's). */
function lowerBound(pairs) {
  const latency = LATENCY_MS / 1000;
  const quota = Math.max(
    ...Object.values(pairs.perFeed).map((n) => Math.max(0, n - QUOTA.burst) / QUOTA.requestsPerSecond + latency),
  );
  return Math.max(quota, (pairs.total * latency) / MAX_CONCURRENCY);
}

function behaviour(_feed, indicator) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < indicator.length; i++) hash = Math.imul(hash ^ indicator.charCodeAt(i), 0x01000193);
  const bucket = (hash >>> 0) % 100;
  return bucket < 70 ? 'not_found' : bucket < 90 ? 'clean' : 'malicious';
}

// ---------------------------------------------------------------------------------------------------------------
// Workers: `threatlib worker` processes, CPU time read from /proc before they stop.

function startWorker(configFile) {
  const child = spawn(process.execPath, [BIN, 'worker', '--config', configFile, '--profile', 'bench'], {
    cwd: join(here, '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk) => {
    output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const started = new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('threatlib worker consuming')) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`a worker exited (${child.exitCode}) before consuming:\n${output.slice(-2000)}`));
      }
    }, 50);
  });
  return { child, started, output: () => output };
}

/** User + system CPU time of a live process, in ms. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

async function stopWorker(worker) {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.child.kill('SIGTERM');
  const timer = setTimeout(() => worker.child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------------------------
// One run.

let runs = 0;

async function run(emulator, dir, indicators, workers, { kill = false } = {}) {
  runs += 1;
  const name = `threatlib-bench.scale.${process.pid}-${Date.now().toString(36)}-${runs}`;
  const queues = { incoming: `${name}.in`, processed: `${name}.out`, alerts: `${name}.alerts` };
  const topics = { ...queues, threats: `${name}.threats` };
  const messageQueue =
    BROKER === 'kafka'
      ? { type: 'kafka', brokers: KAFKA, topics, groupId: name, prefetch: PREFETCH, sessionTimeout: 6000 }
      : { type: 'rabbitmq', connection: RABBITMQ, queues, prefetch: PREFETCH };
  const perFeed = Object.fromEntries(
    FEEDS.map((feed) => [feed, { requestsPerSecond: QUOTA.requestsPerSecond, burstSize: QUOTA.burst }]),
  );
  const config = {
    sources: FEEDS,
    apiKeys: Object.fromEntries(FEEDS.map((feed) => [feed, { key: 'bench', endpoint: emulator.endpoints[feed] }])),
    security: { enforceHttps: false },
    warninglists: { builtin: false },
    logging: { enabled: false },
    performance: {
      maxConcurrency: MAX_CONCURRENCY,
      retryAttempts: 3,
      retryDelay: 50,
      lookupTimeout: 600_000,
      rateLimit: { perFeed },
      circuitBreaker: { failureThreshold: 1000 },
    },
    caching: { enabled: true },
    alerting: { enabled: false },
    campaigns: { enabled: false },
    cluster: { enabled: true, kvserver: { ...REDIS, keyPrefix: `${name}:` } },
    integrations: { messageQueue },
  };
  const configFile = join(dir, `${name}.config.js`);
  await writeFile(configFile, `export default { bench: ${JSON.stringify(config)} };\n`);

  emulator.resetCounters();
  const watcher = new MessageQueueProcessor(
    BROKER === 'kafka'
      ? { type: 'kafka', brokers: KAFKA, groupId: `${name}.watch` }
      : { type: 'rabbitmq', connection: RABBITMQ, prefetch: 1000 },
    { logger: silentLogger },
  );
  const processed = new Map();
  let received = 0;
  let resolveDone;
  const done = new Promise((resolve) => {
    resolveDone = resolve;
  });
  const wanted = new Map();
  for (const indicator of indicators) wanted.set(indicator, (wanted.get(indicator) ?? 0) + 1);
  let missing = wanted.size;
  await watcher.consume(BROKER === 'kafka' ? topics.processed : queues.processed, (message) => {
    const { indicator } = message.json();
    const n = (processed.get(indicator) ?? 0) + 1;
    processed.set(indicator, n);
    if (n === wanted.get(indicator)) missing -= 1;
    received += 1;
    if (missing === 0) resolveDone();
  });

  const pool = Array.from({ length: workers }, () => startWorker(configFile));
  await Promise.all(pool.map((w) => w.started));
  const started = performance.now();
  const publisher = new MessageQueueProcessor(
    BROKER === 'kafka' ? { type: 'kafka', brokers: KAFKA } : { type: 'rabbitmq', connection: RABBITMQ },
    { logger: silentLogger },
  );
  const incoming = BROKER === 'kafka' ? topics.incoming : queues.incoming;
  for (let i = 0; i < indicators.length; i += 1000) {
    await Promise.all(
      indicators.slice(i, i + 1000).map((indicator) => publisher.publish(incoming, JSON.stringify({ indicator }))),
    );
  }
  await publisher.stop();

  let killedCpu = 0;
  if (kill) {
    while (received < indicators.length / 4) await new Promise((resolve) => setTimeout(resolve, 20));
    const victim = pool[0];
    killedCpu = cpuMs(victim.child.pid);
    victim.child.kill('SIGKILL');
  }
  const deadline = setTimeout(() => resolveDone('timeout'), RUN_DEADLINE_MS);
  const outcome = await done;
  clearTimeout(deadline);
  const wallMs = performance.now() - started;
  const workerCpuMs = killedCpu + pool.reduce((sum, w) => sum + cpuMs(w.child.pid), 0);
  await Promise.all(pool.map(stopWorker));
  await watcher.stop();
  await cleanUp(name, queues, topics);

  const stats = emulator.stats();
  const arrivals = emulator.arrivals();
  let overQuota = 0;
  let burstSeen = 0;
  let duplicates = 0;
  for (const feed of FEEDS) {
    const pace = paceOf(arrivals[feed], QUOTA);
    overQuota += pace.overQuota;
    burstSeen = Math.max(burstSeen, pace.burstSeen);
  }
  for (const indicator of wanted.keys()) {
    const feeds = indicator.startsWith('h') ? HOST_FEEDS : IP_FEEDS;
    for (const feed of feeds) duplicates += Math.max(0, emulator.count(feed, indicator) - 1);
  }
  let lost = 0;
  for (const [indicator, n] of wanted) lost += Math.max(0, n - (processed.get(indicator) ?? 0));
  return {
    workers,
    kill,
    crashed: outcome === 'timeout',
    wallMs,
    perSecond: (indicators.length / wallMs) * 1000,
    cpuMsPerIndicator: workerCpuMs / indicators.length,
    violations: stats.total.violations,
    overQuota,
    burstSeen,
    requests: stats.total.requests,
    retriesOf429and500: stats.total.injected429 + stats.total.injected500,
    duplicates,
    lost,
    redelivered: received - indicators.length,
  };
}

/** Removes the run's queues (RabbitMQ: the pipeline's, their retry and dead-letter queues) or topics. */
async function cleanUp(name, queues, topics) {
  try {
    if (BROKER === 'kafka') {
      const admin = new Kafka({ brokers: KAFKA, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      const existing = await admin.listTopics();
      await admin.deleteTopics({ topics: existing.filter((topic) => topic.startsWith(name)) });
      await admin.disconnect();
      return;
    }
    const connection = await amqp.connect(RABBITMQ);
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    for (const queue of Object.values(queues)) {
      for (const suffix of ['', '.dlq', '.retry.50', '.retry.100', '.retry.1000', '.retry.2000', '.retry.4000']) {
        await channel.deleteQueue(`${queue}${suffix}`).catch(() => undefined);
      }
    }
    await connection.close();
  } catch {
    // Names are unique per run; a leftover queue is untidy, not wrong.
  }
  void topics;
}

// ---------------------------------------------------------------------------------------------------------------
// Report

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  return rows
    .map((row) => row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))))
    .map((cells) => cells.join('   '))
    .join('\n');
}

const missing = [];
if (!(await portOpen(REDIS.port))) missing.push('redis');
if (BROKER === 'kafka' ? !(await portOpen(9092)) : !(await portOpen(5672))) missing.push(BROKER);
if (missing.length > 0) {
  console.log(`scale benchmark: needs ${missing.join(' and ')}: bash e2e/services up ${missing.join(' ')}`);
  process.exit(1);
}

const indicators = buildInput();
const pairs = pairsOf(indicators);
const bound = lowerBound(pairs);
console.log(
  `scale benchmark${QUICK ? ' (--quick)' : ''}: ${indicators.length} scan requests (${new Set(indicators).size} unique), ${pairs.total} unique (feed, indicator) pairs, ${BROKER}, ${ROUNDS} round(s)`,
);
console.log(
  `emulator: latency ${LATENCY_MS} ms, quota ${QUOTA.requestsPerSecond}/s burst ${QUOTA.burst} per feed; workers: threatlib worker, prefetch ${PREFETCH}, maxConcurrency ${MAX_CONCURRENCY}, cluster on`,
);
console.log(`lower bound ${bound.toFixed(2)} s (the busiest feed's unique pairs at its quota, as bench:scan's)\n`);

const emulator = await startFeedEmulator({
  latencyMs: LATENCY_MS,
  quotas: Object.fromEntries(FEEDS.map((feed) => [feed, QUOTA])),
  defaultBehaviour: behaviour,
  portPerFeed: true,
  keepRequests: 0,
});
const dir = await mkdtemp(join(tmpdir(), 'threatlib-bench-scale-'));
const results = [];
let crashed = false;
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Sides alternated: a slow spell of the shared machine does not always land on the same worker count.
    const order = round % 2 === 0 ? WORKER_COUNTS : [...WORKER_COUNTS].reverse();
    for (const workers of [...order, 'kill']) {
      const kill = workers === 'kill';
      const count = kill ? 4 : workers;
      process.stdout.write(`round ${round + 1}: ${count} worker(s)${kill ? ', one killed mid-run' : ''}... `);
      try {
        const result = await run(emulator, dir, indicators, count, { kill });
        results.push({ round, ...result });
        crashed ||= result.crashed;
        console.log(
          `${(result.wallMs / 1000).toFixed(1)} s, ${fmt(result.perSecond)}/s, wall/bound ${(result.wallMs / 1000 / bound).toFixed(2)}, violations ${result.violations}/${result.overQuota}, duplicates ${result.duplicates}, lost ${result.lost}`,
        );
      } catch (error) {
        crashed = true;
        console.log(`crashed: ${error.message}`);
      }
    }
  }
} finally {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}

const of = (workers, kill = false) => results.filter((r) => r.workers === workers && r.kill === kill);
const rows = [
  [
    'workers',
    'indicators/s',
    'wall (s)',
    'wall / bound',
    'CPU ms per indicator',
    'violations (emulator / arrivals)',
    'largest burst',
    'duplicate requests',
    'lost',
    'redelivered',
  ],
];
for (const [label, list] of [...WORKER_COUNTS.map((n) => [String(n), of(n)]), ['4, one killed', of(4, true)]]) {
  if (list.length === 0) continue;
  rows.push([
    label,
    fmt(median(list.map((r) => r.perSecond))),
    (median(list.map((r) => r.wallMs)) / 1000).toFixed(1),
    (median(list.map((r) => r.wallMs)) / 1000 / bound).toFixed(2),
    median(list.map((r) => r.cpuMsPerIndicator)).toFixed(2),
    `${Math.max(...list.map((r) => r.violations))} / ${Math.max(...list.map((r) => r.overQuota))}`,
    `${Math.max(...list.map((r) => r.burstSeen)).toFixed(1)} of ${QUOTA.burst}`,
    Math.max(...list.map((r) => r.duplicates)),
    Math.max(...list.map((r) => r.lost)),
    Math.max(...list.map((r) => r.redelivered)),
  ]);
}
console.log(`\nmedians over ${ROUNDS} round(s); violations, bursts, duplicates and losses: the worst round\n`);
console.log(table(rows));

// The ratio the issue asks for, as the median of the rounds' ratios (each round's runs are adjacent in time).
const ratios = [];
for (let round = 0; round < ROUNDS; round++) {
  const one = results.find((r) => r.round === round && r.workers === 1 && !r.kill);
  const four = results.find((r) => r.round === round && r.workers === 4 && !r.kill);
  if (one && four) ratios.push(four.wallMs / one.wallMs);
}
if (ratios.length > 0) {
  const ratio = median(ratios);
  console.log('');
  printFigure('scale/four-over-one', ratio, "(median of the rounds' ratios; below 1 means more workers were faster)");
}
const worst = (key, kill) =>
  Math.max(0, ...results.filter((r) => kill === undefined || !!r.kill === kill).map((r) => r[key]));
console.log(
  `acceptance: violations ${worst('violations') + worst('overQuota') === 0 ? '0' : 'NOT 0'}, duplicate requests ${worst('duplicates', false)} (goal 0), messages lost ${worst('lost')}`,
);
// A worker killed mid-run takes with it the answers of the requests it had under way (at most maxConcurrency): those
// are asked again by the worker its messages go to; everything it had answered and cached is not.
console.log(
  `with one worker killed: duplicate requests ${worst('duplicates', true)} (at most its ${MAX_CONCURRENCY} requests under way, whose answers died with it), messages lost ${worst('lost', true)}`,
);
process.exitCode = crashed ? 1 : 0;
