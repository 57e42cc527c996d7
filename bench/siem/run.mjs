// bench/siem: 10,000 alerts delivered through SIEMConnector.sendAlerts beside a raw loop doing the same wire work, in
// one run: to the Splunk HEC emulator (beside an undici loop posting the same HEC events in batches of the same size)
// and to the real Elasticsearch (beside @elastic/elasticsearch's own bulk helper writing the same ECS documents).
// See ../README.md ("siem") for what is measured and how to read it. The Elasticsearch part needs the e2e service:
//   ./dev services up elasticsearch
import { fork } from 'node:child_process';
import { connect as tcp } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@elastic/elasticsearch';
import { normaliseAlert, silentLogger } from '@threatlib/core';
import { SIEMConnector } from '@threatlib/siem';
import { Agent, request } from 'undici';

const ALERTS = Number(process.env.BENCH_SIEM_ALERTS ?? 10_000);
const HEC_BATCH = Number(process.env.BENCH_HEC_BATCH ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = tcp({ host: '127.0.0.1', port });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

/** A seeded PRNG (mulberry32), so that every run delivers the same alerts. */
function mulberry32(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` alerts in the documented shape (INTERFACE.md 2.1): `severity: 'high'`, a domain indicator with its
 * confidence, and on every third alert an IP address besides it.
 */
function documentedAlerts(count) {
  const random = mulberry32(42);
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

/** Raw: undici posting the same HEC events (the connector's records, built the same way) in batches of the same size. */
async function rawSplunk(emulator, records) {
  const agent = new Agent({ connect: { ca: emulator.ca }, keepAliveTimeout: 10_000, connections: 16 });
  const origin = `https://${emulator.host}:${emulator.port}`;
  const headers = { authorization: `Splunk ${emulator.hecToken}`, 'content-type': 'application/json' };
  const health = await request(`${origin}/services/collector/health`, { dispatcher: agent }); // not timed, as above
  await health.body.text();
  let batches = 0;
  const { ms, cpuMs } = await timed(async () => {
    for (let i = 0; i < records.length; i += HEC_BATCH) {
      let body = '';
      for (const alert of records.slice(i, i + HEC_BATCH)) {
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
    }
  });
  await agent.close();
  return { ms, cpuMs, batches };
}

async function benchSplunk(alerts) {
  const emulator = await startSplunkEmulator();
  const records = alerts.map((alert) => normaliseAlert(alert, new Date()));
  const checked = async (side, result) => {
    const received = await emulator.ask('received');
    if (received.events !== alerts.length || received.refused > 0) {
      throw new Error(`${side}: the emulator indexed ${received.events} events and refused ${received.refused}`);
    }
    await emulator.ask('reset');
    return { ...result, bytes: received.bytes, serverCpuMs: received.cpuMs };
  };
  // Not counted: one delivery of each, so that both run JIT-compiled code from the first timed round.
  await checked('warm-up ours', await oursSplunk(emulator, alerts));
  await checked('warm-up raw', await rawSplunk(emulator, records));

  console.log(
    `Splunk HEC emulator (its own process, HTTPS): ${fmt(ALERTS)} alerts, batches of ${HEC_BATCH}, ${ROUNDS} rounds`,
  );
  const raw = [];
  const ours = [];
  const byCpu = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate which side goes first, so that neither always runs on a warmer (or busier) machine.
    const order = round % 2 ? ['ours', 'raw'] : ['raw', 'ours'];
    const result = {};
    for (const side of order) {
      result[side] =
        side === 'ours'
          ? await checked(side, await oursSplunk(emulator, alerts))
          : await checked(side, await rawSplunk(emulator, records));
    }
    raw.push(rate(ALERTS, result.raw.ms));
    ours.push(rate(ALERTS, result.ours.ms));
    const side = (r) =>
      `${fmt(rate(ALERTS, r.ms))} alerts/s (${r.batches} requests, ${fmt(r.bytes)} B; CPU ms: client ${fmt(r.cpuMs)}, emulator ${fmt(r.serverCpuMs)})`;
    // With one connection and one request at a time, a run's wall time is at best the client's CPU time plus the
    // emulator's: this ratio is the one a machine with a core free for each would show, whatever else runs.
    const cpu = (r) => r.cpuMs + r.serverCpuMs;
    byCpu.push(cpu(result.raw) / cpu(result.ours));
    console.log(
      `  round ${round + 1}: ratio ${(ours[round] / raw[round]).toFixed(2)} (by CPU time: ${byCpu[round].toFixed(2)})`,
    );
    console.log(`    raw  ${side(result.raw)}`);
    console.log(`    ours ${side(result.ours)}`);
  }
  await emulator.close();
  return { raw, ours, byCpu };
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

async function benchElastic(alerts) {
  const es = esClient();
  const records = alerts.map((alert) => normaliseAlert(alert, new Date()));
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
  try {
    // Not counted: one delivery of each, so that both run JIT-compiled code from the first timed round.
    const warmOurs = await fresh('warm-ours');
    await checked('warm-up ours', warmOurs, await oursElastic(warmOurs, alerts));
    const warmRaw = await fresh('warm-raw');
    await checked('warm-up raw', warmRaw, await rawElastic(warmRaw, records));
    console.log(`Elasticsearch ${ES.host}:${ES.port} (the e2e service): ${fmt(ALERTS)} alerts, ${ROUNDS} rounds`);
    const raw = [];
    const ours = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 ? ['ours', 'raw'] : ['raw', 'ours'];
      const result = {};
      for (const side of order) {
        const index = await fresh(`${round}-${side}`);
        result[side] = await checked(
          side,
          index,
          side === 'ours' ? await oursElastic(index, alerts) : await rawElastic(index, records),
        );
      }
      raw.push(rate(ALERTS, result.raw.ms));
      ours.push(rate(ALERTS, result.ours.ms));
      console.log(`  round ${round + 1}: ratio ${(ours[round] / raw[round]).toFixed(2)}`);
      console.log(
        `    helper ${fmt(raw[round])} alerts/s (${fmt(result.raw.bytes)} B of _bulk bodies; client CPU ${fmt(result.raw.cpuMs)} ms)`,
      );
      console.log(
        `    ours   ${fmt(ours[round])} alerts/s (${result.ours.batches} _bulk requests; client CPU ${fmt(result.ours.cpuMs)} ms)`,
      );
    }
    return { raw, ours };
  } finally {
    for (const index of indices) await dropIndex(es, index).catch(() => undefined);
    await es.close();
  }
}

function summary(name, rawName, { raw, ours, byCpu }) {
  // Each round's two runs are adjacent in time, so the median of the rounds' ratios is less swayed by the machine's
  // other work than the ratio of the medians (printed beside it).
  const ratios = ours.map((value, round) => value / raw[round]);
  console.log(`  median ${rawName.padEnd(32)} ${fmt(median(raw))} alerts/s`);
  console.log(`  median ${'SIEMConnector.sendAlerts'.padEnd(32)} ${fmt(median(ours))} alerts/s`);
  console.log(
    `  ${`${name}: ours / raw`.padEnd(39)} ${median(ratios).toFixed(2)} median of the rounds' ratios, ` +
      `${(median(ours) / median(raw)).toFixed(2)} of the medians (goal >= 0.80)`,
  );
  if (byCpu) console.log(`  ${`${name}: ours / raw by CPU time`.padEnd(39)} ${median(byCpu).toFixed(2)} (median)`);
}

/**
 * What `sendAlerts` does before sending anything, measured apart: core's validation of every alert
 * (`normaliseAlert`), which a raw loop does not do.
 */
async function validationAlone(alerts) {
  const runs = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.push(await timed(async () => alerts.map((alert) => normaliseAlert(alert, new Date()))));
  }
  const ms = median(runs.map((r) => r.ms));
  const cpuMs = median(runs.map((r) => r.cpuMs));
  console.log(
    `Validation alone (core's normaliseAlert of the ${fmt(ALERTS)} alerts, inside sendAlerts): ${fmt(ms)} ms (CPU ${fmt(cpuMs)} ms), median of ${ROUNDS}`,
  );
}

async function main() {
  const alerts = documentedAlerts(ALERTS);
  const splunk = await benchSplunk(alerts);
  summary('Splunk', 'raw undici loop', splunk);
  await validationAlone(alerts);

  if (!(await portOpen(ES.port))) {
    console.error(`bench/siem needs Elasticsearch on ${ES.host}:${ES.port} for its second part:`);
    console.error('  ./dev services up elasticsearch');
    process.exit(1);
  }
  const elastic = await benchElastic(alerts);
  summary('Elasticsearch', 'client.helpers.bulk', elastic);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
