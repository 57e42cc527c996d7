// What the benchmarks share: one method for every comparison, the project's goals, whether a server is up, and how
// figures are printed. See README.md ("The method").
//
// The method: a comparison runs its sides in rounds whose order alternates (ours, baseline, then baseline, ours: ABBA;
// three sides rotate), so that a burst of other work on the machine, a warmer JIT or a server still settling the last
// run's writes does not always favour the same side. Each round's runs are adjacent in time, so the figure is the
// median of the rounds' ratios (ours / baseline), not a best-of and not the ratio of the medians (printed beside).
// Beside wall time every side's CPU time per operation is printed (the CPU of the process or processes doing that
// side's work): CPU time is far less swayed by a loaded machine than wall time.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** `--quick` (or BENCH_QUICK=1): a short run that only shows the bench completes and prints its figures (CI). */
export const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** A numeric setting: the environment variable `name` when set, else `full`, or `quick` in a quick run. */
export function setting(name, full, quick = full) {
  const value = process.env[name];
  if (value === undefined || value === '') return QUICK ? quick : full;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new Error(`${name} must be a number, got ${JSON.stringify(value)}`);
  return number;
}

/**
 * The project's goals (issue 27), one place for every bench to print them from. `atLeast`: ours / baseline by wall
 * time (median of the rounds' ratios) must reach it; `atMost`: the figure must stay at or under it.
 */
export const GOALS = {
  'server/scan': { atLeast: 0.9, of: 'req/s, ours / a bare fastify route calling the same client.correlate' },
  'queue/rabbitmq': { atLeast: 0.9, of: 'messages/s, ours / a raw amqplib loop calling the same client.correlate' },
  'queue/kafka': { atLeast: 0.9, of: 'records/s, ours / a raw kafkajs loop calling the same client.correlate' },
  'siem/splunk': { atLeast: 0.8, of: 'alerts/s, sendAlerts(hand-written alerts) / a raw undici loop' },
  'siem/elasticsearch': { atLeast: 0.8, of: 'alerts/s, sendAlerts(hand-written alerts) / client.helpers.bulk' },
  'storage/document-store': { atLeast: 0.8, of: 'records/s, ours on default settings / the mongodb driver' },
  'storage/search-index': { atLeast: 0.8, of: 'documents/s, ours on default settings / client.helpers.bulk' },
  webhooks: { atLeast: 0.9, of: 'deliveries/s, WebhookManager / a raw undici loop' },
  'import/core': { atMost: 1.5, of: "time of `await import('@threatlib/core')` / fastify's" },
  'memory/heap-per-alert': { atMost: 1.5, of: 'heap per stored alert / its JSON size' },
  'scan/wall-bound': { atMost: 1.05, of: 'wall time / the lower bound the quotas allow' },
  'scale/four-over-one': { atMost: 1.1, of: "4 workers' wall/bound over 1 worker's (issue 26)" },
  'browser/page-gzip': {
    atMost: 120,
    of: 'KiB gzip a page loads with `import { ThreatClient }`, argon2 not among it (loaded on first use; issue 24)',
  },
};

/** `goal >= 0.90: met` (or `not met`), for the goal named `name` and the figure `value`. */
function goalText(name, value) {
  const goal = GOALS[name];
  if (!goal) throw new Error(`no goal named ${name}`);
  if (goal.atLeast !== undefined) {
    return `goal >= ${goal.atLeast.toFixed(2)}: ${value >= goal.atLeast ? 'met' : 'not met'}`;
  }
  return `goal <= ${goal.atMost.toFixed(2)}: ${value <= goal.atMost ? 'met' : 'not met'}`;
}

/**
 * Prints the line a reader (and the CI smoke test) looks for: `figure <name>: <value> <what>; <goal>`. Everything
 * else a bench prints is detail; every bench prints at least one of these.
 */
export function printFigure(name, value, what) {
  const goal = GOALS[name]
    ? `${goalText(name, value)} (${GOALS[name].of})`
    : "no goal of the project's: a figure to watch";
  console.log(`figure ${name}: ${value.toFixed(3)} ${what}; ${goal}`);
}

/** A whole number with thousands separators: 12,345. */
export const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The order of the sides in round `round` (from 0): two sides alternate ABBA (ours, baseline; baseline, ours; ...).
 * More sides run in the reverse of the previous round's order every odd round (A B C, C B A), and each pair of rounds
 * starts one further along (B C A, A C B, ...): within each pair of rounds every two sides run once in each order (A
 * and B: A B B A A B, ABBA as two sides do), and each side takes each place in turn. A plain rotation (A B C, B C A,
 * C A B) would put A before B in two rounds of three.
 */
export function orderOf(round, sides) {
  if (sides.length === 2) return round % 2 === 0 ? [...sides] : [sides[1], sides[0]];
  const shift = Math.floor(round / 2) % sides.length;
  const rotated = [...sides.slice(shift), ...sides.slice(0, shift)];
  return round % 2 === 0 ? rotated : rotated.reverse();
}

// --- CPU time ---------------------------------------------------------------------------------------------------

let ticksPerSecond;
/** Clock ticks per second of /proc/<pid>/stat (CLK_TCK, nearly always 100). */
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * CPU time (user + system) in ms of the process `pid` so far, read from /proc/<pid>/stat (Linux; 10 ms resolution),
 * or NaN where there is no /proc. For a server or child whose work is one side of a comparison.
 */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count the fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) / clockTicks()) * 1000;
  } catch {
    return Number.NaN;
  }
}

/** Collects garbage when node runs with --expose-gc (the bench scripts do), so one run's garbage is not the next's. */
export function settle() {
  globalThis.gc?.();
}

// --- Comparisons ------------------------------------------------------------------------------------------------

/**
 * Runs a comparison: `warmUp` runs of each side untimed, then `rounds` rounds in alternating order. `sides` maps a
 * side's name to `async (round) => ({ops, ms, cpuMs, note?})` (operations done, wall ms, CPU ms of the processes
 * doing its work); the first side is ours, the second the baseline, any further one an easier (or other) path
 * printed beside. Prints each round as it ends and returns the rounds (`[{[side]: result}]`).
 */
export async function compare({ sides, rounds, warmUp = 1, unit, label = (side) => side }) {
  // BENCH_SIDES=ours runs one side alone (for a profiler: `node --cpu-prof`); the summary then has nothing to compare.
  const only = process.env.BENCH_SIDES?.split(',').filter(Boolean);
  const names = Object.keys(sides).filter((name) => !only || only.includes(name));
  for (let i = 0; i < warmUp; i += 1) {
    for (const name of names) {
      settle();
      await sides[name]('warm');
    }
  }
  const results = [];
  for (let round = 0; round < rounds; round += 1) {
    const result = {};
    for (const name of orderOf(round, names)) {
      settle();
      result[name] = await sides[name](round);
    }
    results.push(result);
    console.log(`  round ${round + 1} (order ${orderOf(round, names).join(', ')}):`);
    for (const name of names) console.log(`    ${label(name).padEnd(44)} ${describe(result[name], unit)}`);
  }
  return results;
}

/** `12,345 msg/s, 81.0 µs CPU/msg (wall 1.23 s, CPU 1,000 ms)` for one side's run. */
function describe(r, unit) {
  const rate = (r.ops / r.ms) * 1000;
  const cpuPerOp = (r.cpuMs * 1000) / r.ops;
  return (
    `${fmt(rate).padStart(9)} ${unit}/s, ${cpuPerOp.toFixed(1).padStart(7)} µs CPU/${unit} ` +
    `(wall ${(r.ms / 1000).toFixed(2)} s, CPU ${fmt(r.cpuMs)} ms${r.note ? `; ${r.note}` : ''})`
  );
}

const rateOf = (r) => (r.ops / r.ms) * 1000;
const cpuPerOp = (r) => r.cpuMs / r.ops;

/**
 * Prints the summary of `rounds` for `side` against `baseline`: medians of each, the median of the rounds' wall-time
 * ratios (ours / baseline throughput) and of their CPU ratios (baseline CPU per operation / ours: like the wall
 * ratio, above 1 when ours costs less), and the ratio of the medians. With `goal` (a GOALS name) it prints the
 * `figure` line judged against that goal. Returns `{wall, cpu}`.
 */
export function summarise({ rounds, side, baseline, unit, goal, title }) {
  if (!rounds[0]?.[side] || !rounds[0]?.[baseline]) return undefined;
  const wall = median(rounds.map((r) => rateOf(r[side]) / rateOf(r[baseline])));
  const cpu = median(rounds.map((r) => cpuPerOp(r[baseline]) / cpuPerOp(r[side])));
  const ofMedians = median(rounds.map((r) => rateOf(r[side]))) / median(rounds.map((r) => rateOf(r[baseline])));
  const cpuUs = (name) => (median(rounds.map((r) => cpuPerOp(r[name]))) * 1000).toFixed(1);
  console.log(
    `  ${title}: median ${fmt(median(rounds.map((r) => rateOf(r[side]))))} ${unit}/s beside ${fmt(median(rounds.map((r) => rateOf(r[baseline]))))} ${unit}/s; ` +
      `CPU ${cpuUs(side)} beside ${cpuUs(baseline)} µs/${unit}`,
  );
  console.log(
    `  ${title}: ratio by wall time ${wall.toFixed(2)}, by CPU time ${cpu.toFixed(2)} (medians of ${rounds.length} rounds' ratios; ratio of the wall medians ${ofMedians.toFixed(2)})`,
  );
  if (goal) printFigure(goal, wall, `by wall time, CPU ratio ${cpu.toFixed(2)} (median of ${rounds.length} rounds)`);
  return { wall, cpu };
}

// --- Servers ----------------------------------------------------------------------------------------------------

/** Whether something accepts a TCP connection at `port` on `host` (within a second). */
export function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

/** Whether the server of `url` (its host and port, or `defaultPort`) accepts a TCP connection. */
export function urlOpen(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return portOpen(Number(port || defaultPort), hostname);
}

/** A seeded PRNG (mulberry32): the same sequence on every run. */
export function mulberry32(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The indicator mix of the queue and server benches (the user's path): `count` messages of which about 80% are new
 * indicators, 10% repeat an earlier one (answered from the client's cache) and 10% are threats (new indicators on the
 * local blocklist, so each raises an alert). Domains and IPv4 addresses alternate. Returns the indicators in order and
 * the threats (for the blocklist). `tag` keeps runs and rounds apart (nothing cached from another run).
 */
export function indicatorMix(count, tag, seed = 42) {
  const random = mulberry32(seed);
  const indicators = [];
  const threats = [];
  const fresh = (i) =>
    i % 2 === 0 ? `h${i}-${tag}.bench.threatlib-test.net` : `45.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  for (let i = 0; i < count; i += 1) {
    const draw = random();
    if (draw < 0.1 && indicators.length > 0) {
      indicators.push(indicators[Math.floor(random() * indicators.length)]);
    } else if (draw < 0.2) {
      const threat = `t${i}-${tag}.bench.threatlib-test.net`;
      threats.push(threat);
      indicators.push(threat);
    } else {
      indicators.push(fresh(i));
    }
  }
  return { indicators, threats };
}
