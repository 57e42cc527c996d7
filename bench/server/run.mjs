// Benchmark: POST /threats/scan on a warm client vs a bare fastify route returning the same JSON, each server in its
// own process. Prints req/s and p99 for both and their ratio.
//
// The load comes from wrk (C, from Debian; installed when missing and apt-get is usable): it costs little per request,
// so the figures say more about the servers than about the generator. BENCH_LOADGEN=autocannon uses autocannon
// instead (in Node; it sends in bursts of its own event loop and spreads far more from round to round).
import { execFileSync, fork, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = 2;
const CONNECTIONS = 50;
const TOKEN = 'bench-token';
const BODY = JSON.stringify({ indicator: '45.148.10.240' });
const server = fileURLToPath(new URL('./server.mjs', import.meta.url));

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
  if (haveWrk() || process.env.BENCH_LOADGEN === 'autocannon') return haveWrk();
  if (spawnSync('apt-get', ['--version']).error !== undefined) return false;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const install = [...sudo, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q'];
  console.error('bench:server: installing wrk from Debian (once)');
  spawnSync(install[0], [...install.slice(1), '--no-install-recommends', 'wrk'], { stdio: 'ignore' });
  return haveWrk();
}
const useWrk = process.env.BENCH_LOADGEN !== 'autocannon' && ensureWrk();

function start(mode, extra = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(server, [mode], {
      execArgv: process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) => {
      pin(child.pid, 1);
      resolve({ child, ...message });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    child.send(extra);
  });
}

const script = join(tmpdir(), `threatlib-bench-server-${process.pid}.lua`);
writeFileSync(
  script,
  [
    'wrk.method = "POST"',
    `wrk.body = '${BODY}'`,
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.headers["Authorization"] = "Bearer ${TOKEN}"`,
  ].join('\n'),
);

function wrk(url, seconds) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url];
  const command = canPin ? ['taskset', '-c', '0', 'wrk', ...args] : ['wrk', ...args];
  const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1]);
  const p99Text = /\s99%\s+([\d.]+)(us|ms|s)/.exec(run.stdout);
  const p99 = p99Text ? Number(p99Text[1]) * { us: 0.001, ms: 1, s: 1000 }[p99Text[2]] : Number.NaN;
  const errors = Number(/Socket errors:.*?(\d+)/.exec(run.stdout)?.[1] ?? 0);
  // wrk prints this line only when some answers were not 2xx/3xx: a server answering errors fast must not look fast.
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(run.stdout)?.[1] ?? 0);
  return { rps, p99, errors, non2xx };
}

async function load(url) {
  if (useWrk) {
    wrk(url, WARMUP_S);
    return wrk(url, DURATION_S);
  }
  if (canPin) pin(process.pid, 0);
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: BODY,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

async function post(url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: BODY,
  });
  return response.text();
}

// Rounds alternate ours and bare so that a burst of other work on the machine hits both; the summary is the median.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const rounds = [];
let response;
for (let round = 0; round < ROUNDS; round++) {
  const ours = await start('ours');
  // Warm: the first scan loads the lists and fills the cache.
  await post(`${ours.url}/api/v1/threats/scan`);
  response = await post(`${ours.url}/api/v1/threats/scan`);
  const oursFigures = await load(`${ours.url}/api/v1/threats/scan`);
  ours.child.kill('SIGINT');

  const bare = await start('bare', { response });
  const bareFigures = await load(`${bare.url}/scan`);
  bare.child.kill('SIGINT');
  rounds.push({ ours: oursFigures, bare: bareFigures, ratio: oursFigures.rps / bareFigures.rps });
}
rmSync(script, { force: true });

const row = (name, f) =>
  `${name.padEnd(34)} ${f.rps.toFixed(0).padStart(8)} req/s   p99 ${f.p99.toFixed(1).padStart(5)} ms   errors ${f.errors}   non-2xx ${f.non2xx}`;
console.log(
  `server benchmark: ${useWrk ? 'wrk' : 'autocannon (wrk not available)'}, ${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} rounds, POST ${BODY}; ` +
    (canPin ? 'load generator on CPU 0, server on CPU 1' : 'not pinned to CPUs (taskset missing or one CPU)'),
);
console.log(`response (${response.length} bytes): ${response.slice(0, 120)}...`);
rounds.forEach((r, i) => {
  console.log(row(`round ${i + 1}: threatlib POST /threats/scan`, r.ours));
  console.log(row(`round ${i + 1}: bare fastify, same JSON`, r.bare));
  console.log(`round ${i + 1}: ratio ${r.ratio.toFixed(2)}`);
});
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ratio = median(rounds.map((r) => r.ratio));
console.log(
  `median: threatlib ${median(rounds.map((r) => r.ours.rps)).toFixed(0)} req/s, bare ${median(rounds.map((r) => r.bare.rps)).toFixed(0)} req/s`,
);
console.log(
  `ratio (ours / bare req/s, median of ${ROUNDS}): ${ratio.toFixed(2)}   goal >= 0.7: ${ratio >= 0.7 ? 'yes' : 'no'}`,
);
