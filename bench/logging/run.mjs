// bench/logging: what a log call costs on a hot path. Prints ns per call of a disabled-level call (the logger's
// level is above it) beside a call to an empty function with the same arguments, and, for scale, of enabled lines
// written to a destination that discards them. It prints figures and never judges by exit code.
// Run with `pnpm bench:logging` from the repository root; see ../README.md ("logging").
import { createRequire } from 'node:module';
import { parseConfig } from '@threatlib/core';
import { withCategory } from '@threatlib/core/integration';
import { createLogger } from '@threatlib/core/logging';
import { printFigure, setting } from '../support.mjs';

// pino as core has it, for a reference line without threatlib's hook, redaction and routing.
const { pino } = createRequire(import.meta.resolve('@threatlib/core'))('pino');

const CALLS = setting('BENCH_CALLS', 5_000_000, 200_000);
const ENABLED_CALLS = setting('BENCH_ENABLED_CALLS', 200_000, 10_000);
const ROUNDS = setting('BENCH_ROUNDS', 5, 3);

/** A sink the optimiser cannot prove unused: each case adds to it. */
let sink = 0;

function logger(logging) {
  let bytes = 0;
  const log = createLogger(parseConfig({ sources: ['feed_urls'], logging }).logging, {
    destination: {
      write(line) {
        bytes += line.length;
      },
    },
  });
  return { log, bytes: () => bytes };
}

/** Median ns per call, by wall and by CPU time, over ROUNDS rounds of `calls` calls of `fn(i)`. */
function measure(calls, fn) {
  for (let i = 0; i < Math.min(calls, 100_000); i++) fn(i);
  const wall = [];
  const cpu = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn(i);
    wall.push(Number(process.hrtime.bigint() - start) / calls);
    const used = process.cpuUsage(cpuStart);
    cpu.push(((used.user + used.system) * 1000) / calls);
  }
  const mid = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { ns: mid(wall), cpuNs: mid(cpu) };
}

let plainBytes = 0;
const plain = pino(
  { name: 'threatlib', level: 'info' },
  {
    write(line) {
      plainBytes += line.length;
    },
  },
).child({ category: 'feed' });
const info = logger({ level: 'info' });
const feeds = withCategory(info.log, 'feed');
const filtered = logger({ level: 'info', filters: { excludeFeeds: ['otx'], includeOnly: ['feed', 'vault'] } });
const text = logger({ level: 'info', format: 'text' });
const structured = logger({ level: 'info', format: 'structured' });

function noop(obj, msg) {
  if (obj === msg) sink += 1;
}

const cases = [
  ['empty function, same arguments (baseline)', CALLS, (i) => noop({ feed: 'feed_otx', status: 'timeout', i }, 'slow')],
  [
    'debug on an info logger (disabled)',
    CALLS,
    (i) => info.log.debug({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
  [
    'debug on a category child (disabled)',
    CALLS,
    (i) => feeds.debug({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
  [
    'plain pino child, debug (disabled, reference)',
    CALLS,
    (i) => plain.debug({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
  [
    'debug with filters configured (disabled)',
    CALLS,
    (i) => filtered.log.debug({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
  [
    'plain pino child, info (reference)',
    ENABLED_CALLS,
    (i) => plain.info({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
  [
    'info, json, no secret (enabled)',
    ENABLED_CALLS,
    (i) => feeds.info({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
  [
    'info, json, a secret to redact (enabled)',
    ENABLED_CALLS,
    (i) => feeds.info({ feed: 'feed_otx', headers: { 'x-otx-api-key': 'k' }, i }, 'slow'),
  ],
  [
    'info dropped by a filter (enabled level)',
    ENABLED_CALLS,
    (i) => filtered.log.info({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
  ['info, text (enabled)', ENABLED_CALLS, (i) => text.log.info({ feed: 'feed_otx', status: 'timeout', i }, 'slow')],
  [
    'info, structured (enabled)',
    ENABLED_CALLS,
    (i) => structured.log.info({ feed: 'feed_otx', status: 'timeout', i }, 'slow'),
  ],
];

console.log(`node ${process.version}, median of ${ROUNDS} rounds\n`);
console.log(`${'case'.padEnd(46)} ${'ns/call'.padStart(9)} ${'CPU ns/call'.padStart(12)}`);
const results = new Map();
for (const [name, calls, fn] of cases) {
  // A fresh copy of the loop per case: one shared loop would see every case's function and turn megamorphic,
  // charging later cases for the earlier ones.
  const fresh = new Function('ROUNDS', `return ${measure.toString()}`)(ROUNDS);
  const { ns, cpuNs } = fresh(calls, fn);
  results.set(name, ns);
  console.log(`${name.padEnd(46)} ${ns.toFixed(1).padStart(9)} ${cpuNs.toFixed(1).padStart(12)}`);
}
const baseline = results.get(cases[0][0]);
const disabled = results.get(cases[1][0]);
console.log(
  `\ndisabled level minus baseline: ${(disabled - baseline).toFixed(1)} ns/call ` +
    `(${(disabled / baseline).toFixed(2)}x the empty function)`,
);
printFigure('logging/disabled-call', disabled - baseline, 'ns per disabled log call over an empty function');
// Keeps the sinks alive so the calls above cannot be optimised away.
if (sink + plainBytes + info.bytes() + filtered.bytes() + text.bytes() + structured.bytes() < 0) console.log('');
