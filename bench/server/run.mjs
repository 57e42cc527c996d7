// bench/server: POST /threats/scan of APIServer beside a bare fastify route that parses the same body, calls the same
// client.correlate (a client configured the same way) and answers the same JSON, so the ratio measures the server's
// own overhead (hardening, authentication, rate limit, metrics, request validation). Every request asks about an
// indicator of the user's mix (mostly new, some repeated, some threats on the local blocklist that raise alerts).
// Each server runs in a process of its own; the CPU time per request of that process is printed beside req/s.
//
// The load comes from wrk (C, from Debian; installed when missing and apt-get is usable): it costs little per request,
// so the figures say more about the servers than about the generator. BENCH_LOADGEN=autocannon uses autocannon
// instead (in Node; it sends in bursts of its own event loop and spreads far more from round to round). See
// ../README.md ("server").
import { execFileSync, fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { compare, indicatorMix, processCpuMs, QUICK, setting, summarise } from '../support.mjs';

const DURATION_S = setting('BENCH_DURATION_S', 10, 3);
const WARMUP_S = setting('BENCH_WARMUP_S', 2, 1);
const ROUNDS = setting('BENCH_ROUNDS', 6, 2);
/** Distinct request bodies written for the load generator; each server takes them in order from the start. */
const BODIES = setting('BENCH_BODIES', 300_000, 20_000);
const CONNECTIONS = 50;
const TOKEN = 'bench-token';
const serverScript = fileURLToPath(new URL('./server.mjs', import.meta.url));

// With two or more CPUs, the load generator and the server under test each get their own: otherwise they take turns
// on the same CPU and the figures measure the scheduler as much as the server. Both servers are measured alike.
const canPin = availableParallelism() >= 2 && spawnSync('taskset', ['-V']).status === 0;
function pin(pid, cpu) {
  if (canPin) execFileSync('taskset', ['-pc', String(cpu), String(pid)], { stdio: 'ignore' });
}

function haveWrk() {
  return spawnSync('wrk', ['-v']).error === undefined;
}
function ensureWrk() {
  // A quick run (CI) installs nothing: it takes autocannon when wrk is not there.
  if (haveWrk() || process.env.BENCH_LOADGEN === 'autocannon' || QUICK) return haveWrk();
  if (spawnSync('apt-get', ['--version']).error !== undefined) return false;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const install = [...sudo, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q'];
  console.error('bench:server: installing wrk from Debian (once)');
  spawnSync(install[0], [...install.slice(1), '--no-install-recommends', 'wrk'], { stdio: 'ignore' });
  return haveWrk();
}
const useWrk = process.env.BENCH_LOADGEN !== 'autocannon' && ensureWrk();

// The user's mix: one file of request bodies, one blocklist holding the mix's threats. Every server is a fresh process
// (empty cache, no alert raised yet) and takes the bodies from the start; its measured run starts where its warm-up
// stopped, so no indicator of the measured run was seen in the warm-up.
const dir = mkdtempSync(join(tmpdir(), 'threatlib-bench-server-'));
const mix = indicatorMix(BODIES, `${process.pid}`);
const blocklist = join(dir, 'blocklist.txt');
writeFileSync(blocklist, `${mix.threats.join('\n')}\n`);
const bodies = mix.indicators.map((indicator) => JSON.stringify({ indicator }));
const bodiesFile = join(dir, 'bodies.txt');
writeFileSync(bodiesFile, `${bodies.join('\n')}\n`);
const script = join(dir, 'mix.lua');
writeFileSync(
  script,
  [
    'wrk.method = "POST"',
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.headers["Authorization"] = "Bearer ${TOKEN}"`,
    'local bodies = {}',
    `for line in io.lines("${bodiesFile}") do bodies[#bodies + 1] = line end`,
    'local next = 0',
    'function init(args) next = tonumber(args[1]) or 0 end',
    'function request()',
    '  next = next + 1',
    '  return wrk.format(nil, nil, nil, bodies[((next - 1) % #bodies) + 1])',
    'end',
  ].join('\n'),
);

function start(mode) {
  return new Promise((resolve, reject) => {
    const child = fork(serverScript, [mode], {
      execArgv: process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) => {
      pin(child.pid, 1);
      resolve({ child, ...message });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    child.send({ blocklist });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGINT');
  });
}

function wrk(url, duration, from) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${duration}s`, '--latency', '-s', script, url, '--', String(from)];
  const command = canPin ? ['taskset', '-c', '0', 'wrk', ...args] : ['wrk', ...args];
  const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)\b/.exec(run.stdout);
  const requests = Number(total?.[1]);
  const seconds = Number(total?.[2]) * { us: 1e-6, ms: 1e-3, s: 1, m: 60 }[total?.[3]];
  const p99Text = /\s99%\s+([\d.]+)(us|ms|s)/.exec(run.stdout);
  const p99 = p99Text ? Number(p99Text[1]) * { us: 0.001, ms: 1, s: 1000 }[p99Text[2]] : Number.NaN;
  const errors = Number(/Socket errors:.*?(\d+)/.exec(run.stdout)?.[1] ?? 0);
  // wrk prints this line only when some answers were not 2xx/3xx: a server answering errors fast must not look fast.
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(run.stdout)?.[1] ?? 0);
  return { requests, seconds, p99, errors, non2xx };
}

async function loadgen(url, seconds, from) {
  if (useWrk) return wrk(url, seconds, from);
  if (canPin) pin(process.pid, 0);
  let next = from;
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    requests: [
      {
        setupRequest: (request) => {
          request.body = bodies[next++ % bodies.length];
          return request;
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

let example;
/** One run of a side: a fresh server, a warm-up from the first body, then the measured run from where it stopped. */
async function side(mode) {
  const server = await start(mode);
  try {
    const warm = await loadgen(server.url, WARMUP_S, 0);
    if (example === undefined || !example[mode]) {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ indicator: mix.threats[0] }),
      });
      example = { ...example, [mode]: `${response.status} ${(await response.text()).length} bytes` };
    }
    const cpuBefore = processCpuMs(server.child.pid);
    const started = performance.now();
    // From past the warm-up's last body (its unanswered requests, up to one per connection, included).
    const from = warm.requests + CONNECTIONS;
    const figures = await loadgen(server.url, DURATION_S, from);
    const ms = performance.now() - started;
    const cpuMs = processCpuMs(server.child.pid) - cpuBefore;
    const wrapped = from + figures.requests > bodies.length ? ', bodies wrapped round: some repeated' : '';
    return {
      // The generator's own duration is what its request count is over; the wall time above adds its start and exit.
      ops: figures.requests,
      ms: figures.seconds * 1000,
      cpuMs,
      note: `p99 ${figures.p99.toFixed(1)} ms, errors ${figures.errors}, non-2xx ${figures.non2xx}, measured ${(ms / 1000).toFixed(1)} s${wrapped}`,
    };
  } finally {
    await stop(server.child);
  }
}

console.log(
  `server benchmark: ${useWrk ? 'wrk' : 'autocannon'}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up then ${DURATION_S} s per run, ` +
    `${ROUNDS} rounds (ABBA); ${mix.indicators.length} bodies of the user's mix (${mix.threats.length} threats on the blocklist); ` +
    (canPin ? 'load generator on CPU 0, server on CPU 1' : 'not pinned to CPUs (taskset missing or one CPU)'),
);
console.log("  CPU is the server process's (/proc/<pid>/stat) over the measured run, per request answered");
try {
  const rounds = await compare({
    sides: { ours: () => side('ours'), bare: () => side('bare') },
    rounds: ROUNDS,
    warmUp: 0,
    unit: 'req',
    label: (name) =>
      name === 'ours' ? 'ours: APIServer POST /api/v1/threats/scan' : 'bare: fastify route, same client.correlate',
  });
  console.log(`  a threat's answer: ours ${example.ours}, bare ${example.bare}`);
  summarise({ rounds, side: 'ours', baseline: 'bare', unit: 'req', goal: 'server/scan', title: 'ours / bare' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
