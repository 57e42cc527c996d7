// bench/import: what `await import('@threatlib/core')` costs a fresh process, beside `await import('fastify')`: the
// median of BENCH_PROCESSES rounds, each a fresh process of each (alternating which goes first, ABBA), timed inside
// the process around the import (wall and CPU), so node's own start is left out for both. Then the modules each loads,
// counted once by a load hook, grouped by package. See ../README.md ("import").
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, orderOf, printFigure, setting } from '../support.mjs';

const PROCESSES = setting('BENCH_PROCESSES', 10, 3);
const child = fileURLToPath(new URL('./child.mjs', import.meta.url));
const SPECIFIERS = { core: '@threatlib/core', fastify: 'fastify' };

/** One fresh process importing `specifier`; resolves what it reported. */
function once(specifier, mode) {
  return new Promise((resolve, reject) => {
    const args = mode ? [specifier, mode] : [specifier];
    const started = fork(child, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answer;
    started.once('message', (message) => {
      answer = message;
    });
    started.once('exit', (code) =>
      answer ? resolve(answer) : reject(new Error(`importing ${specifier} exited with ${code} before reporting`)),
    );
  });
}

console.log(
  `import benchmark: await import() in ${PROCESSES} fresh processes of each, in rounds alternating which goes first ` +
    '(ABBA), after one of each untimed; timed inside the process around the import (wall and CPU time)',
);
for (const specifier of Object.values(SPECIFIERS)) await once(specifier); // the file system's cache warm for both
const rounds = [];
for (let round = 0; round < PROCESSES; round += 1) {
  const result = {};
  for (const name of orderOf(round, Object.keys(SPECIFIERS))) result[name] = await once(SPECIFIERS[name]);
  rounds.push(result);
  console.log(
    `  round ${round + 1}: core ${result.core.ms.toFixed(0)} ms (CPU ${result.core.cpuMs.toFixed(0)} ms), ` +
      `fastify ${result.fastify.ms.toFixed(0)} ms (CPU ${result.fastify.cpuMs.toFixed(0)} ms): ${(result.core.ms / result.fastify.ms).toFixed(2)}x`,
  );
}
const med = (side, key) => median(rounds.map((r) => r[side][key]));
const time = median(rounds.map((r) => r.core.ms / r.fastify.ms));
const cpu = median(rounds.map((r) => r.core.cpuMs / r.fastify.cpuMs));
console.log(
  `  medians: core ${med('core', 'ms').toFixed(0)} ms (CPU ${med('core', 'cpuMs').toFixed(0)} ms), ` +
    `fastify ${med('fastify', 'ms').toFixed(0)} ms (CPU ${med('fastify', 'cpuMs').toFixed(0)} ms); ` +
    `ratio of the medians ${(med('core', 'ms') / med('fastify', 'ms')).toFixed(2)}x`,
);
for (const [name, specifier] of Object.entries(SPECIFIERS)) {
  const { modules, byPackage } = await once(specifier, 'count');
  const top = Object.entries(byPackage)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([pkg, n]) => `${pkg} ${n}`)
    .join(', ');
  console.log(`  ${name}: ${modules} modules loaded (${top})`);
}
printFigure(
  'import/core',
  time,
  `times fastify's import time (median of ${PROCESSES} rounds' ratios; by CPU time ${cpu.toFixed(2)} times)`,
);
