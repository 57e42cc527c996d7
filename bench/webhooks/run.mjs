// bench/webhooks: 10,000 signed deliveries fanned out to 5 local receivers through WebhookManager.trigger (the file
// outbox on, the SSRF guard on with loopback allowed), beside a raw undici loop that signs and posts the same payloads
// at the same concurrency. Prints deliveries per second of each and the ratio ours / raw (goal >= 0.8). It prints
// figures and never judges by exit code. Run with `pnpm bench:webhooks` from the repository root; see ../README.md.
import { fork } from 'node:child_process';
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookManager } from '@threatlib/webhooks';
import { Agent, request } from 'undici';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 5);
/** Requests in flight per receiver, for both: the manager's `delivery.concurrency`, the raw loop's workers. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
/**
 * Triggers awaited at once by ours (each fans out to every receiver). Events arrive faster than they are delivered,
 * as they do from a busy client; the manager's `concurrency` keeps the requests in flight at CONCURRENCY per receiver,
 * the raw loop's figure.
 */
const TRIGGER_WINDOW = Number(process.env.BENCH_TRIGGER_WINDOW ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** `raw,ours` (default), or one of them alone (to profile it). */
const SIDES = (process.env.BENCH_SIDES ?? 'raw,ours').split(',');
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

/** Ours: one manager, RECEIVERS endpoints, EVENTS triggers with TRIGGER_WINDOW awaited at once. */
async function ours() {
  const directory = await mkdtemp(join(tmpdir(), 'threatlib-bench-outbox-'));
  const manager = new WebhookManager(
    {
      delivery: {
        allowPrivateNetworks: ['127.0.0.1'],
        concurrency: CONCURRENCY,
        maxPending: DELIVERIES * 2,
        outbox: { directory },
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
    `${name.padEnd(6)} ${result.seconds.toFixed(2).padStart(8)} s ${rate.toFixed(0).padStart(9)} deliveries/s ` +
      `${((result.cpuMs * 1000) / (EVENTS * RECEIVERS)).toFixed(0).padStart(5)} µs CPU/delivery  failed ${result.failed}${extra}`,
  );
  return rate;
}

console.log(
  `node ${process.version}: ${EVENTS * RECEIVERS} signed deliveries (${EVENTS} events x ${RECEIVERS} receivers), ` +
    `${CONCURRENCY} in flight per receiver, best of ${ROUNDS} rounds\n`,
);
let bestRaw = 0;
let bestOurs = 0;
// Round 0 warms both up (JIT, connections, the outbox's first open) and is not counted.
for (let round = 0; round <= ROUNDS; round++) {
  console.log(round === 0 ? 'round 0 (warm-up, not counted)' : `round ${round}`);
  if (SIDES.includes('raw')) {
    await ask('reset');
    const r = await raw();
    const rawSeen = await ask('report');
    const rate = line('raw', r, `  received ${rawSeen.received} on ${rawSeen.connections} connections`);
    if (round > 0) bestRaw = Math.max(bestRaw, rate);
  }
  if (SIDES.includes('ours')) {
    await ask('reset');
    const o = await ours();
    const oursSeen = await ask('report');
    const rate = line(
      'ours',
      o,
      `  received ${oursSeen.received} on ${oursSeen.connections} connections (distinct ids ${oursSeen.distinct}, duplicates ${oursSeen.duplicates}), ` +
        `manager: delivered ${o.stats.delivered}, retried ${o.stats.retried}, pending ${o.stats.pending}`,
    );
    if (round > 0) bestOurs = Math.max(bestOurs, rate);
  }
}
console.log(`\nbest raw  ${bestRaw.toFixed(0)} deliveries/s`);
console.log(`best ours ${bestOurs.toFixed(0)} deliveries/s`);
console.log(`ratio ours/raw ${(bestOurs / bestRaw).toFixed(2)} (goal >= 0.8)`);
receivers.send('close');
