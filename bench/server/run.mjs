// Benchmark: POST /threats/scan on a warm client vs a bare fastify route returning the same JSON, each server in its
// own process, the load from autocannon in this one. Prints req/s and p99 for both and their ratio.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 50;
const TOKEN = 'bench-token';
const BODY = JSON.stringify({ indicator: '45.148.10.240' });
const server = fileURLToPath(new URL('./server.mjs', import.meta.url));

function start(mode, extra = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(server, [mode], {
      execArgv: process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) => resolve({ child, ...message }));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    child.send(extra);
  });
}

async function load(url) {
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

const ours = await start('ours');
// Warm: the first scan loads the lists and fills the cache.
await fetch(`${ours.url}/api/v1/threats/scan`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  body: BODY,
});
const response = await (
  await fetch(`${ours.url}/api/v1/threats/scan`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: BODY,
  })
).text();
const oursFigures = await load(`${ours.url}/api/v1/threats/scan`);
ours.child.kill('SIGINT');

const bare = await start('bare', { response });
const bareFigures = await load(`${bare.url}/scan`);
bare.child.kill();

const row = (name, f) =>
  `${name.padEnd(28)} ${f.rps.toFixed(0).padStart(8)} req/s   p99 ${String(f.p99).padStart(4)} ms   errors ${f.errors}   non-2xx ${f.non2xx}`;
console.log(`server benchmark: ${CONNECTIONS} connections, ${DURATION_S} s each, POST with ${BODY}`);
console.log(row('threatlib POST /threats/scan', oursFigures));
console.log(row('bare fastify, same JSON', bareFigures));
const ratio = oursFigures.rps / bareFigures.rps;
console.log(`ratio (ours / bare req/s): ${ratio.toFixed(2)}   goal >= 0.7: ${ratio >= 0.7 ? 'yes' : 'no'}`);
