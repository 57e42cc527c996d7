// bench/webhooks: 10,000 signed deliveries fanned out to 5 local receivers through WebhookManager.trigger (the file
// outbox on, the SSRF guard on with loopback allowed), beside a raw undici loop that signs and posts the same payloads
// at the same concurrency. Rounds alternate the sides (ABBA); prints deliveries per second and the sender's CPU time
// per delivery of each, and ours / raw as the median of the rounds' ratios (the project's goal: >= 0.9). It prints
// figures and never judges by exit code. Run with `pnpm bench:webhooks` from the repository root; see ../README.md.
import { fork } from 'node:child_process';
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookManager } from '@threatlib/webhooks';
import { Agent, request } from 'undici';
import { median, orderOf, printFigure, setting, settle } from '../support.mjs';

const DELIVERIES = setting('BENCH_DELIVERIES', 10_000, 1_000);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 5);
/** Requests in flight per receiver, for both: the manager's `delivery.concurrency`, the raw loop's workers. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
/**
 * Triggers awaited at once by ours (each fans out to every receiver). Events arrive faster than they are delivered,
 * as they do from a busy client; the manager's `concurrency` keeps the requests in flight at CONCURRENCY per receiver,
 * the raw loop's figure.
 */
const TRIGGER_WINDOW = Number(process.env.BENCH_TRIGGER_WINDOW ?? 200);
const ROUNDS = setting('BENCH_ROUNDS', 6, 2);
/**
 * `raw,ours,ours-no-outbox` (default), or some alone (to profile one). `ours-no-outbox` is an easier path printed
 * beside, not the goal: the manager with an outbox that keeps nothing, to tell what the default file outbox's
 * durability costs from what the manager's own per-delivery work does (the raw loop keeps nothing either).
 */
const SIDES = (process.env.BENCH_SIDES ?? 'raw,ours,ours-no-outbox').split(',');
const EVENTS = Math.ceil(DELIVERIES / RECEIVERS);
const SECRET = randomBytes(32);
const WHSEC = `whsec_${SECRET.toString('base64')}`;
/** The raw loop signs with a KeyObject, as ours does: an HMAC keyed by a Buffer costs Node several times more. */
const SECRET_KEY = createSecretKey(SECRET);

const receivers = fork(new URL('./receivers.mjs', import.meta.url), [String(RECEIVERS)]);
const ask = (message) =>
  new Promise((resolve) => {
    receivers.once('message', resolve);
    if (message !== undefined) receivers.send(message);
  });
const { ports } = await ask();
const urls = ports.map((port) => `http://127.0.0.1:${port}/hooks/threatlib`);

const data = (i) => ({
  indicator: `198.51.${(i >> 8) & 255}.${i & 255}`,
  confidence: 80 + (i % 20),
  sources: ['feed_otx', 'feed_abuse', 'feed_cti'],
});

/** The raw loop: for each receiver CONCURRENCY workers sign and POST each event's payload, one after another. */
async function raw() {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  let failed = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    urls.map(async (url) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < EVENTS) {
            const i = next++;
            const id = `msg_${randomBytes(16).toString('base64url')}`;
            const timestamp = Math.floor(Date.now() / 1000);
            const body = JSON.stringify({
              type: 'high-confidence-threat',
              timestamp: new Date().toISOString(),
              data: data(i),
            });
            const signature = createHmac('sha256', SECRET_KEY)
              .update(`${id}.${timestamp}.`)
              .update(body)
              .digest('base64');
            const response = await request(url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'webhook-id': id,
                'webhook-timestamp': String(timestamp),
                'webhook-signature': `v1,${signature}`,
              },
              body,
              dispatcher: agent,
            });
            await response.body.dump();
            if (response.statusCode >= 300) failed += 1;
          }
        }),
      );
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  return { seconds, failed, cpuMs: (used.user + used.system) / 1000 };
}

/** A `WebhookOutbox` that keeps nothing: the easier path without durability (nothing survives a restart). */
const keepsNothing = {
  open: async () => [],
  put: async () => undefined,
  remove: async () => undefined,
  close: async () => undefined,
};

/**
 * Ours: one manager, RECEIVERS endpoints, EVENTS triggers with TRIGGER_WINDOW awaited at once; on the default file
 * outbox (in a temporary directory), or with `durable: false` an outbox that keeps nothing.
 */
async function ours({ durable = true } = {}) {
  const directory = await mkdtemp(join(tmpdir(), 'threatlib-bench-outbox-'));
  const manager = new WebhookManager(
    {
      delivery: {
        allowPrivateNetworks: ['127.0.0.1'],
        concurrency: CONCURRENCY,
        maxPending: DELIVERIES * 2,
        outbox: durable ? { directory } : keepsNothing,
      },
    },
    { enforceHttps: false },
  );
  urls.forEach((url, i) => {
    manager.addOutgoing({ name: `receiver-${i}`, url, events: ['high-confidence-threat'], secret: WHSEC });
  });
  await manager.start();
  let failed = 0;
  let next = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: TRIGGER_WINDOW }, async () => {
      while (next < EVENTS) {
        const results = await manager.trigger('high-confidence-threat', data(next++));
        failed += results.filter((result) => result.status !== 'delivered').length;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const stats = manager.deliveryStats;
  await manager.stop();
  await rm(directory, { recursive: true, force: true });
  return { seconds, failed, stats, cpuMs: (used.user + used.system) / 1000 };
}

function line(name, result, extra = '') {
  const rate = (EVENTS * RECEIVERS) / result.seconds;
  console.log(
    `${name.padEnd(14)} ${result.seconds.toFixed(2).padStart(8)} s ${rate.toFixed(0).padStart(9)} deliveries/s ` +
      `${((result.cpuMs * 1000) / (EVENTS * RECEIVERS)).toFixed(1).padStart(6)} µs CPU/delivery  failed ${result.failed}${extra}`,
  );
  return { rate, cpuMs: result.cpuMs };
}

async function runSide(side) {
  settle();
  await ask('reset');
  if (side === 'raw') {
    const r = await raw();
    const seen = await ask('report');
    return line('raw', r, `  received ${seen.received} on ${seen.connections} connections`);
  }
  const o = await ours({ durable: side === 'ours' });
  const seen = await ask('report');
  return line(
    side,
    o,
    `  received ${seen.received} on ${seen.connections} connections (distinct ids ${seen.distinct}, duplicates ${seen.duplicates}), ` +
      `manager: delivered ${o.stats.delivered}, retried ${o.stats.retried}, pending ${o.stats.pending}`,
  );
}

console.log(
  `node ${process.version}: ${EVENTS * RECEIVERS} signed deliveries (${EVENTS} events x ${RECEIVERS} receivers), ` +
    `${CONCURRENCY} in flight per receiver, ${ROUNDS} rounds alternating the sides (ABBA); CPU is the sender's ` +
    '(this process; the receivers run in their own)\n',
);
const rounds = [];
const sides = SIDES.filter((side) => ['raw', 'ours', 'ours-no-outbox'].includes(side));
// Round 0 warms both up (JIT, connections, the outbox's first open) and is not counted.
for (let round = 0; round <= ROUNDS; round++) {
  const order = orderOf(Math.max(0, round - 1), sides);
  console.log(round === 0 ? 'round 0 (warm-up, not counted)' : `round ${round} (order ${order.join(', ')})`);
  const result = {};
  for (const side of order) result[side] = await runSide(side);
  if (round > 0) rounds.push(result);
}
if (sides.includes('ours') && sides.includes('raw')) {
  const wall = median(rounds.map((r) => r.ours.rate / r.raw.rate));
  // Raw's CPU per delivery over ours: like the rate ratio, above 1 when ours costs less.
  const cpu = median(rounds.map((r) => r.raw.cpuMs / r.ours.cpuMs));
  const perDelivery = (side) => ((median(rounds.map((r) => r[side].cpuMs)) * 1000) / (EVENTS * RECEIVERS)).toFixed(1);
  console.log(
    `\nmedian raw  ${median(rounds.map((r) => r.raw.rate)).toFixed(0)} deliveries/s, ${perDelivery('raw')} µs CPU/delivery`,
  );
  console.log(
    `median ours ${median(rounds.map((r) => r.ours.rate)).toFixed(0)} deliveries/s, ${perDelivery('ours')} µs CPU/delivery`,
  );
  console.log(
    `ours/raw: by wall time ${wall.toFixed(2)}, by CPU time ${cpu.toFixed(2)} (medians of ${ROUNDS} rounds' ratios)`,
  );
  if (sides.includes('ours-no-outbox')) {
    const easier = median(rounds.map((r) => r['ours-no-outbox'].rate / r.raw.rate));
    const easierCpu = median(rounds.map((r) => r.raw.cpuMs / r['ours-no-outbox'].cpuMs));
    console.log(
      `median ours-no-outbox ${median(rounds.map((r) => r['ours-no-outbox'].rate)).toFixed(0)} deliveries/s, ${perDelivery('ours-no-outbox')} µs CPU/delivery`,
    );
    console.log(
      `ours-no-outbox/raw (an easier path, not the goal: an outbox that keeps nothing): by wall time ${easier.toFixed(2)}, by CPU time ${easierCpu.toFixed(2)}`,
    );
  }
  printFigure('webhooks', wall, `by wall time, CPU ratio ${cpu.toFixed(2)} (median of ${ROUNDS} rounds)`);
}
receivers.send('close');
