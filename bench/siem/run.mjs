// bench/siem: 10,000 alerts delivered through SIEMConnector.sendAlerts beside a raw loop doing the same wire work, in
// one run: to the Splunk HEC emulator (beside an undici loop posting the same HEC events in batches of the same size)
// and to the real Elasticsearch (beside @elastic/elasticsearch's own bulk helper writing the same ECS documents).
// Ours runs twice per round: fed the documented alerts a user writes by hand (`inputs`, validated by the connector
// inside the timer: the goal's path) and, as an easier path printed beside, the records the client's alert path makes
// (`records`, validated by core before the timer). The sides' order alternates (ABBA for every two of them); the figure is the median of
// the rounds' ratios, CPU time per alert printed beside.
// See ../README.md ("siem") for what is measured and how to read it. The Elasticsearch part needs the e2e service:
//   ./dev services up elasticsearch
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@elastic/elasticsearch';
import { silentLogger } from '@threatlib/core';
import { normaliseAlert } from '@threatlib/core/integration';
import { SIEMConnector } from '@threatlib/siem';
import { Agent, request } from 'undici';
import { fmt, median, mulberry32, orderOf, portOpen, printFigure, setting, settle } from '../support.mjs';

const ALERTS = setting('BENCH_SIEM_ALERTS', 10_000, 500);
const HEC_BATCH = setting('BENCH_HEC_BATCH', 500);
/** Requests in flight on both sides (the connector's default for Splunk is 4). */
const HEC_CONCURRENCY = setting('BENCH_HEC_CONCURRENCY', 4);
const ROUNDS = setting('BENCH_ROUNDS', 6, 2);
/**
 * Which sides run (`BENCH_SIDES=inputs` runs one alone, for a profiler): `inputs` (the goal's path: hand-written
 * alerts, validated by the connector inside the timer), `raw`, and `records` (an easier path, printed beside).
 */
const SIDES = (process.env.BENCH_SIDES ?? 'inputs,raw,records').split(',').filter(Boolean);
/** Which parts run (`splunk`, `elastic`). */
const PARTS = (process.env.BENCH_PARTS ?? 'splunk,elastic').split(',').filter(Boolean);
const ES = {
  host: '127.0.0.1',
  port: Number(process.env.BENCH_ES_PORT ?? 19200),
  username: 'threatlib',
  password: 'threatlib-e2e-password',
};
const run = `${process.pid}-${Date.now().toString(36)}`;

// The raw Elasticsearch side writes the very documents the connector writes: the builder and the index template are
// the connector's own (internal modules of @threatlib/siem's build, reached beside its entry point).
const siemEntry = import.meta.resolve('@threatlib/siem');
const { ecsAlertDocument } = await import(new URL('./platforms/elastic/ecs-alert.js', siemEntry).href);
const { alertIndexTemplate } = await import(new URL('./platforms/elastic/alert-index-template.js', siemEntry).href);

const rate = (count, ms) => (count / ms) * 1000;

/** Runs `work`, measuring its wall time and this process's CPU time meanwhile (the client's own work). */
async function timed(work) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { value, ms, cpuMs: (used.user + used.system) / 1000 };
}

/**
 * `count` alerts in the documented shape (INTERFACE.md 2.1): `severity: 'high'`, a domain indicator with its
 * confidence, and on every third alert an IP address besides it.
 */
function documentedAlerts(count) {
  const random = mulberry32(42); // the same alerts every run
  const start = Date.parse('2025-06-01T00:00:00.000Z');
  return Array.from({ length: count }, (_, i) => {
    const domain = `c2-${i.toString(36)}.bench.threatlib.net`;
    const indicators = [{ type: 'domain', value: domain, confidence: 60 + Math.floor(random() * 40) }];
    if (i % 3 === 0) {
      const ip = `198.51.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`;
      indicators.push({ type: 'ip', value: ip, confidence: 50 + Math.floor(random() * 50) });
    }
    return {
      title: `Outbound connection to a known C2 domain (${domain})`,
      severity: 'high',
      description: `Host ws-${Math.floor(random() * 5000)} resolved and contacted ${domain}; flagged by 3 of 5 feeds`,
      indicators,
      timestamp: new Date(start + i * 1000).toISOString(),
    };
  });
}

// --- Splunk HEC ------------------------------------------------------------------------------------------------

function startSplunkEmulator() {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./splunk-emulator.mjs', import.meta.url)), {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const pending = [];
    child.on('message', (message) => {
      if (message.op === 'ready') {
        resolve({
          ...message,
          ask(op) {
            return new Promise((answer) => {
              pending.push(answer);
              child.send({ op });
            });
          },
          close: () => new Promise((done) => child.once('exit', done).send({ op: 'close' })),
        });
        return;
      }
      pending.shift()?.(message);
    });
    child.once('exit', (code) => reject(new Error(`the Splunk emulator exited with ${code}`)));
  });
}

/** Ours: the connector as a user sends a volume of alerts, `sendAlerts`, batched by the connector. */
async function oursSplunk(emulator, alerts) {
  const siem = new SIEMConnector(
    {
      platform: 'siem_a',
      host: emulator.host,
      port: emulator.port,
      credentials: { username: emulator.username, password: emulator.password },
      hec: { token: emulator.hecToken, port: emulator.port },
      tls: { ca: emulator.ca },
      batchSize: HEC_BATCH,
      batchConcurrency: HEC_CONCURRENCY,
      timeout: 30_000,
      retries: 3,
    },
    { logger: silentLogger },
  );
  await siem.testConnection(); // not timed: opens the pooled TLS connection, as a running application has
  const { value: receipt, ms, cpuMs } = await timed(() => siem.sendAlerts(alerts));
  await siem.stop();
  if (receipt.accepted !== alerts.length) throw new Error(`ours: ${receipt.accepted} of ${alerts.length} accepted`);
  return { ms, cpuMs, batches: receipt.batches };
}

/**
 * Raw: undici posting the same HEC events (the connector's records, built the same way) in batches of the same size,
 * the same number of requests in flight.
 */
async function rawSplunk(emulator, records) {
  const agent = new Agent({ connect: { ca: emulator.ca }, keepAliveTimeout: 10_000, connections: 16 });
  const origin = `https://${emulator.host}:${emulator.port}`;
  const headers = { authorization: `Splunk ${emulator.hecToken}`, 'content-type': 'application/json' };
  const health = await request(`${origin}/services/collector/health`, { dispatcher: agent }); // not timed, as above
  await health.body.text();
  let batches = 0;
  const post = async (slice) => {
    let body = '';
    for (const alert of slice) {
      const { deliveries: _deliveries, ...record } = alert;
      body += JSON.stringify({
        time: Date.parse(alert.timestamp) / 1000,
        source: 'threatlib',
        sourcetype: 'threatlib:alert',
        event: { kind: 'threatlib:alert', ...record },
      });
    }
    const response = await request(`${origin}/services/collector/event`, {
      dispatcher: agent,
      method: 'POST',
      headers,
      body,
    });
    const answer = JSON.parse(await response.body.text());
    if (response.statusCode !== 200 || answer.code !== 0) {
      throw new Error(`raw: HEC answered ${response.statusCode} ${JSON.stringify(answer)}`);
    }
    batches += 1;
  };
  const { ms, cpuMs } = await timed(async () => {
    // HEC_CONCURRENCY workers, each posting the next batch not yet taken (what the connector does).
    let next = 0;
    const worker = async () => {
      while (next < records.length) {
        const start = next;
        next += HEC_BATCH;
        await post(records.slice(start, start + HEC_BATCH));
      }
    };
    await Promise.all(Array.from({ length: HEC_CONCURRENCY }, worker));
  });
  await agent.close();
  return { ms, cpuMs, batches };
}

/** What each side is fed: the raw side and `records` the client's records, `inputs` the documented inputs. */
const SIDE_LABELS = {
  raw: 'raw    ',
  records: 'records',
  inputs: 'inputs ',
};

/** The order of the sides in `round` (ABBA for every two of them), so that none always runs on a warmer (or busier) machine. */
const sidesOf = (round) => orderOf(round, SIDES);

async function benchSplunk(alerts, records) {
  const emulator = await startSplunkEmulator();
  const checked = async (side, result) => {
    const received = await emulator.ask('received');
    if (received.events !== alerts.length || received.refused > 0) {
      throw new Error(`${side}: the emulator indexed ${received.events} events and refused ${received.refused}`);
    }
    await emulator.ask('reset');
    return { ...result, bytes: received.bytes, serverCpuMs: received.cpuMs };
  };
  const runSide = (side) =>
    side === 'raw' ? rawSplunk(emulator, records) : oursSplunk(emulator, side === 'records' ? records : alerts);
  // Not counted: one delivery of each, so that every side runs JIT-compiled code from the first timed round.
  for (const side of SIDES) await checked(`warm-up ${side}`, await runSide(side));

  console.log(
    `Splunk HEC emulator (its own process, HTTPS): ${fmt(ALERTS)} alerts, batches of ${HEC_BATCH}, ` +
      `${HEC_CONCURRENCY} in flight, ${ROUNDS} rounds`,
  );
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const result = {};
    for (const side of sidesOf(round)) {
      settle();
      result[side] = await checked(side, await runSide(side));
    }
    rounds.push(result);
    // The ratio of the client's and the emulator's CPU time together is the steady one on a shared machine: what the
    // run costs, whatever else runs (with one request at a time, it is what a machine with a core free for each shows).
    const cpu = (r) => r.cpuMs + r.serverCpuMs;
    const ratios = SIDES.filter((side) => side !== 'raw' && result.raw)
      .map(
        (side) =>
          `${side} ${(rate(ALERTS, result[side].ms) / rate(ALERTS, result.raw.ms)).toFixed(2)} ` +
          `(by CPU time ${(cpu(result.raw) / cpu(result[side])).toFixed(2)})`,
      )
      .join(', ');
    console.log(`  round ${round + 1}${ratios ? `: ours / raw: ${ratios}` : ''}`);
    for (const side of SIDES) {
      const r = result[side];
      console.log(
        `    ${SIDE_LABELS[side]} ${fmt(rate(ALERTS, r.ms))} alerts/s (${r.batches} requests, ${fmt(r.bytes)} B; ` +
          `CPU ms: client ${fmt(r.cpuMs)}, emulator ${fmt(r.serverCpuMs)})`,
      );
    }
  }
  await emulator.close();
  return rounds.map((result) =>
    Object.fromEntries(
      Object.entries(result).map(([side, r]) => [
        side,
        { rate: rate(ALERTS, r.ms), cpu: r.cpuMs + r.serverCpuMs, clientCpu: r.cpuMs },
      ]),
    ),
  );
}

// --- Elasticsearch -----------------------------------------------------------------------------------------------

const esClient = () =>
  new Client({ node: `http://${ES.host}:${ES.port}`, auth: { username: ES.username, password: ES.password } });

/** Creates `index` with the connector's template (not timed, for both sides alike). */
async function createIndex(es, index) {
  await es.indices.putIndexTemplate({ name: index, ...alertIndexTemplate(index) });
  await es.indices.create({ index });
}

async function dropIndex(es, index) {
  await es.indices.delete({ index, ignore_unavailable: true });
  await es.indices.deleteIndexTemplate({ name: index }).catch(() => undefined);
}

async function countOf(es, index) {
  await es.indices.refresh({ index });
  return (await es.count({ index })).count;
}

/** Ours: `sendAlerts` on siem_c, its default batching (5,000 alerts or 5 MB per `_bulk`). */
async function oursElastic(index, alerts) {
  const siem = new SIEMConnector(
    {
      platform: 'siem_c',
      host: ES.host,
      port: ES.port,
      protocol: 'http',
      enforceHttps: false,
      credentials: { username: ES.username, password: ES.password },
      index,
      kibana: { enabled: false },
      timeout: 30_000,
      retries: 3,
    },
    { logger: silentLogger },
  );
  await siem.testConnection(); // not timed: authenticates and opens the connection
  const { value: receipt, ms, cpuMs } = await timed(() => siem.sendAlerts(alerts));
  await siem.stop();
  if (receipt.accepted !== alerts.length) throw new Error(`ours: ${receipt.accepted} of ${alerts.length} accepted`);
  return { ms, cpuMs, batches: receipt.batches };
}

/** Raw: the client's bulk helper, defaults (5 MB flushes, 5 at a time), `create` of the same ECS documents. */
async function rawElastic(index, records) {
  const es = esClient();
  await es.security.authenticate(); // not timed, as above
  const sentAt = new Date();
  const dropped = [];
  const {
    value: stats,
    ms,
    cpuMs,
  } = await timed(() =>
    es.helpers.bulk({
      datasource: records,
      onDocument: (alert) => [{ create: { _index: index, _id: alert.id } }, ecsAlertDocument(alert, sentAt)],
      onDrop: (item) => dropped.push(item),
      onSuccess: () => undefined,
      flushInterval: 30_000,
    }),
  );
  await es.close();
  if (stats.successful !== records.length || dropped.length > 0) {
    throw new Error(`raw: ${stats.successful} of ${records.length} written, ${dropped.length} dropped`);
  }
  return { ms, cpuMs, bytes: stats.bytes };
}

async function benchElastic(alerts, records) {
  const es = esClient();
  const indices = [];
  const fresh = async (label) => {
    const index = `threatlib-test-bench-siem-${run}-${label}`;
    indices.push(index);
    await createIndex(es, index);
    return index;
  };
  const checked = async (side, index, result) => {
    const count = await countOf(es, index);
    if (count !== alerts.length) throw new Error(`${side}: ${index} holds ${count} documents`);
    await dropIndex(es, index);
    return result;
  };
  const runSide = async (side, label) => {
    const index = await fresh(label);
    const work =
      side === 'raw' ? rawElastic(index, records) : oursElastic(index, side === 'records' ? records : alerts);
    return checked(side, index, await work);
  };
  try {
    // Not counted: one delivery of each, so that every side runs JIT-compiled code from the first timed round.
    for (const side of SIDES) await runSide(side, `warm-${side}`);
    console.log(`Elasticsearch ${ES.host}:${ES.port} (the e2e service): ${fmt(ALERTS)} alerts, ${ROUNDS} rounds`);
    const rounds = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const result = {};
      for (const side of sidesOf(round)) {
        settle();
        result[side] = await runSide(side, `${round}-${side}`);
      }
      rounds.push(result);
      const ratios = SIDES.filter((side) => side !== 'raw' && result.raw)
        .map((side) => `${side} ${(rate(ALERTS, result[side].ms) / rate(ALERTS, result.raw.ms)).toFixed(2)}`)
        .join(', ');
      console.log(`  round ${round + 1}${ratios ? `: ours / raw: ${ratios}` : ''}`);
      for (const side of SIDES) {
        const r = result[side];
        const what = side === 'raw' ? `${fmt(r.bytes)} B of _bulk bodies` : `${r.batches} _bulk requests`;
        console.log(
          `    ${SIDE_LABELS[side]} ${fmt(rate(ALERTS, r.ms))} alerts/s (${what}; client CPU ${fmt(r.cpuMs)} ms)`,
        );
      }
    }
    return rounds.map((result) =>
      Object.fromEntries(
        Object.entries(result).map(([side, r]) => [side, { rate: rate(ALERTS, r.ms), clientCpu: r.cpuMs }]),
      ),
    );
  } finally {
    for (const index of indices) await dropIndex(es, index).catch(() => undefined);
    await es.close();
  }
}

/**
 * The medians of a part's rounds, and for each of ours the median of the rounds' ratios to raw (each round's runs
 * are adjacent in time, so that ratio is less swayed by the machine's other work than the ratio of the medians,
 * printed beside it).
 */
function summary(name, rawName, rounds, goal) {
  const names = {
    raw: rawName,
    records: 'sendAlerts(client records)',
    inputs: 'sendAlerts(hand-written alerts)',
  };
  // CPU per alert: the client's and, where measured (Splunk), the emulator's too (`cpu`); else the client's alone.
  const cpuOf = (r) => r.cpu ?? r.clientCpu;
  for (const side of SIDES) {
    const cpuUs = (median(rounds.map((r) => cpuOf(r[side]))) * 1000) / ALERTS;
    const clientUs = (median(rounds.map((r) => r[side].clientCpu)) * 1000) / ALERTS;
    console.log(
      `  median ${names[side].padEnd(32)} ${fmt(median(rounds.map((r) => r[side].rate)))} alerts/s, ` +
        `${cpuUs.toFixed(1)} µs CPU/alert${rounds[0]?.[side].cpu !== undefined ? ` (client ${clientUs.toFixed(1)})` : ' (client)'}`,
    );
  }
  if (!SIDES.includes('raw')) return;
  for (const side of SIDES.filter((s) => s !== 'raw')) {
    const wall = median(rounds.map((r) => r[side].rate / r.raw.rate));
    const ofMedians = median(rounds.map((r) => r[side].rate)) / median(rounds.map((r) => r.raw.rate));
    // CPU ratios are raw's CPU time over ours: like the rate ratios, above 1 when ours costs less.
    const cpu = median(rounds.map((r) => cpuOf(r.raw) / cpuOf(r[side])));
    const clientCpu = median(rounds.map((r) => r.raw.clientCpu / r[side].clientCpu));
    const what = side === 'inputs' ? 'the goal path' : 'an easier path, not the goal: records core already validated';
    console.log(
      `  ${name}: ${names[side]} / raw (${what}): by wall time ${wall.toFixed(2)}, by CPU time ${cpu.toFixed(2)}, ` +
        `by client CPU ${clientCpu.toFixed(2)} (medians of ${rounds.length} rounds' ratios; ratio of the wall medians ${ofMedians.toFixed(2)})`,
    );
    if (side === 'inputs') {
      printFigure(goal, wall, `by wall time, CPU ratio ${cpu.toFixed(2)} (median of ${rounds.length} rounds)`);
    }
  }
}

/**
 * What `sendAlerts` does with documented inputs before sending anything, measured apart: core's validation of every
 * alert (`normaliseAlert`), which the raw loops do not do.
 */
async function validationAlone(alerts) {
  const runs = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.push(await timed(async () => alerts.map((alert) => normaliseAlert(alert, new Date()))));
  }
  const ms = median(runs.map((r) => r.ms));
  const cpuMs = median(runs.map((r) => r.cpuMs));
  console.log(
    `Validation alone (core's normaliseAlert of the ${fmt(ALERTS)} documented inputs): ${fmt(ms)} ms (CPU ${fmt(cpuMs)} ms), median of ${ROUNDS}`,
  );
}

async function main() {
  const alerts = documentedAlerts(ALERTS);
  // What the client's alert path hands on: each input validated once by core (as `client.alerts.add` does).
  const records = alerts.map((alert) => normaliseAlert(alert, new Date()));
  if (PARTS.includes('splunk')) {
    summary('Splunk', 'raw undici loop', await benchSplunk(alerts, records), 'siem/splunk');
    if (SIDES.includes('inputs')) await validationAlone(alerts);
  }
  if (!PARTS.includes('elastic')) return;
  if (!(await portOpen(ES.port))) {
    console.error(`bench/siem needs Elasticsearch on ${ES.host}:${ES.port} for its second part:`);
    console.error('  ./dev services up elasticsearch');
    process.exit(1);
  }
  summary('Elasticsearch', 'client.helpers.bulk', await benchElastic(alerts, records), 'siem/elasticsearch');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
