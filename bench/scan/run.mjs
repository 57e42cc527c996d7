// Scan benchmark: 10,000 indicators through threatlib's client ("ours") and through the bare feed adapters with a
// plain concurrency limit ("naive"), against the feed emulator with quotas and injected faults. It prints figures
// and never judges by exit code: it exits 0 whatever the figures, and 1 only if something crashed.
// Run with `pnpm bench:scan` from the repository root; see ../README.md.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseIndicator } from '@threatlib/core';
import { abuseipdbFeed, crowdsecFeed, otxFeed, urlhausFeed, virustotalFeed } from '@threatlib/core/feeds';
import { mulberry32, paceOf, startFeedEmulator, VENDORS } from '@threatlib/feed-emulator';
import { median, orderOf, printFigure, QUICK, setting } from '../support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
// BENCH_SHARED_DATA points elsewhere when the repository is not checked out beside shared/ (a worktree).
const sharedData = process.env.BENCH_SHARED_DATA ?? resolve(repoRoot, '../shared/data');

const TOTAL = setting('BENCH_INDICATORS', 10_000, 600);
/** Rounds of both clients, alternating which goes first; the figure is the median of ours' wall/bound. */
const ROUNDS = setting('BENCH_ROUNDS', 3, 1);
const REPEAT_SHARE = 0.2;
const SEED = 42;
const LATENCY_MS = 25;
const QUOTA = { requestsPerSecond: 200, burst: 50 };
const FAULTS = { rate429: 0.01, rate500: 0.01, seed: 42 };
const MAX_CONCURRENCY = 50;
const TIMEOUT_MS = 10_000;
/** A client that has not finished by then is killed and the run counts as crashed. */
const RUN_DEADLINE_MS = Number(process.env.BENCH_DEADLINE_S ?? 900) * 1000;
/** How long a child may take to exit by itself once it has reported. */
const EXIT_GRACE_MS = 10_000;

const FEEDS = [urlhausFeed, otxFeed, abuseipdbFeed, crowdsecFeed, virustotalFeed];
for (const feed of FEEDS) {
  if (!(feed.id in VENDORS)) throw new Error(`feed ${feed.id} has no emulated API`);
}

// ---------------------------------------------------------------------------------------------------------------
// Input

function shuffle(items, random) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** Distinct valid indicators of `candidates`, in a seeded random order, as many as asked. */
function pick(candidates, n, random, what) {
  const seen = new Set();
  const picked = [];
  for (const candidate of shuffle([...candidates], random)) {
    let indicator;
    try {
      indicator = parseIndicator(candidate);
    } catch {
      continue;
    }
    if (seen.has(indicator.value)) continue;
    seen.add(indicator.value);
    picked.push(indicator.value);
    if (picked.length === n) return picked;
  }
  throw new Error(`only ${picked.length} distinct ${what} in the shared data, ${n} needed`);
}

/** Where the input came from (printed). */
const input = { source: '' };

/**
 * 10,000 indicators, half IPv4 and half hostnames, of which 20% repeat an earlier one of the same kind, in a seeded
 * order: the same list on every run.
 */
async function buildInput() {
  const random = mulberry32(SEED);
  const ipFile = join(sharedData, 'ipsum-level3.txt');
  const hostFile = join(sharedData, 'warninglists/tranco10k.json');
  // Without the shared data (a checkout with nothing beside it), made-up indicators of the same kinds: the emulator
  // answers by a hash of the text, so the figures are alike.
  const ipLines = existsSync(ipFile)
    ? (await readFile(ipFile, 'utf8'))
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#'))
    : Array.from({ length: TOTAL }, (_, i) => `45.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const hostnames = existsSync(hostFile)
    ? JSON.parse(await readFile(hostFile, 'utf8')).list
    : Array.from({ length: TOTAL }, (_, i) => `bench-host-${i}.com`);
  input.source = `${existsSync(ipFile) ? 'ipsum' : 'made-up IPv4 addresses'}, ${existsSync(hostFile) ? 'Tranco top 10k' : 'made-up hostnames'}`;

  const perKind = TOTAL / 2;
  const repeatsPerKind = Math.round((TOTAL * REPEAT_SHARE) / 2);
  const uniquePerKind = perKind - repeatsPerKind;
  const kinds = {
    ip: pick(ipLines, uniquePerKind, random, 'IPv4 addresses'),
    host: pick(hostnames, uniquePerKind, random, 'hostnames'),
  };

  // Slots: each unique indicator once, plus a repeat marker per repeat; shuffled, then walked in order so that a
  // repeat always copies an indicator of its kind that came earlier.
  const slots = [];
  for (const kind of ['ip', 'host']) {
    for (const value of kinds[kind]) slots.push({ kind, value });
    for (let i = 0; i < repeatsPerKind; i++) slots.push({ kind });
  }
  shuffle(slots, random);
  const out = [];
  const earlier = { ip: [], host: [] };
  const pending = { ip: 0, host: 0 };
  for (const slot of slots) {
    if (slot.value === undefined) {
      if (earlier[slot.kind].length === 0) pending[slot.kind] += 1;
      else out.push(earlier[slot.kind][Math.floor(random() * earlier[slot.kind].length)]);
      continue;
    }
    out.push(slot.value);
    earlier[slot.kind].push(slot.value);
    // A repeat drawn before any indicator of its kind existed comes right after the first one.
    for (; pending[slot.kind] > 0; pending[slot.kind]--) out.push(slot.value);
  }
  return out;
}

/** Unique (feed, indicator) pairs, counting only the feeds that support the indicator's type. */
function uniquePairs(indicators) {
  const perFeed = Object.fromEntries(FEEDS.map((feed) => [feed.id, 0]));
  const types = {};
  for (const value of new Set(indicators)) {
    const { type } = parseIndicator(value);
    types[type] = (types[type] ?? 0) + 1;
    for (const feed of FEEDS) if (feed.supportedTypes.includes(type)) perFeed[feed.id] += 1;
  }
  const total = Object.values(perFeed).reduce((a, b) => a + b, 0);
  return { perFeed, total, types, unique: new Set(indicators).size };
}

/** The lower bound on wall time implied by the quotas, the latency and the concurrency, in seconds. */
function lowerBound(pairs) {
  const latency = LATENCY_MS / 1000;
  let quotaTerm = 0;
  let slowest = '';
  for (const [feed, unique] of Object.entries(pairs.perFeed)) {
    const t = Math.max(0, unique - QUOTA.burst) / QUOTA.requestsPerSecond + latency;
    if (t > quotaTerm) [quotaTerm, slowest] = [t, feed];
  }
  const concurrencyTerm = (pairs.total * latency) / MAX_CONCURRENCY;
  return { bound: Math.max(quotaTerm, concurrencyTerm), quotaTerm, slowest, concurrencyTerm };
}

// ---------------------------------------------------------------------------------------------------------------
// Runs

/** FNV-1a: a stable hash, so an indicator gets the same answer on every run. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function defaultBehaviour(_feed, indicator) {
  const bucket = fnv1a(indicator) % 100;
  return bucket < 70 ? 'not_found' : bucket < 90 ? 'clean' : 'malicious';
}

/** Runs one client in a child process; resolves with its figures, or rejects when it crashed. */
function runClient(mode, inputFile, endpoints) {
  return new Promise((resolvePromise, reject) => {
    const child = fork(join(here, 'client.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let figures;
    let exitTimer;
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${mode}: no result after ${RUN_DEADLINE_MS / 1000} s; killed`));
    }, RUN_DEADLINE_MS);
    child.once('message', (message) => {
      figures = message;
      clearTimeout(deadline);
      exitTimer = setTimeout(() => {
        figures.leftOpen = true;
        child.kill('SIGKILL');
      }, EXIT_GRACE_MS);
    });
    child.once('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(deadline);
      clearTimeout(exitTimer);
      if (figures) resolvePromise(figures);
      else reject(new Error(`${mode}: client exited with ${signal ?? `code ${code}`} before reporting`));
    });
    child.send({
      mode,
      inputFile,
      endpoints,
      settings: {
        maxConcurrency: MAX_CONCURRENCY,
        timeoutMs: TIMEOUT_MS,
        requestsPerSecond: QUOTA.requestsPerSecond,
        burst: QUOTA.burst,
      },
    });
  });
}

/**
 * The feeds' own view of a run, from the emulator's arrival log: requests over a token bucket of the quota (the
 * violations recomputed), the busiest second and the largest burst any feed saw.
 */
function feedsView(arrivals) {
  const view = { overQuota: 0, peak: 0, burstSeen: 0 };
  for (const feed of FEEDS) {
    const pace = paceOf(arrivals[feed.id] ?? [], QUOTA);
    view.overQuota += pace.overQuota;
    view.peak = Math.max(view.peak, pace.peak);
    view.burstSeen = Math.max(view.burstSeen, pace.burstSeen);
  }
  return view;
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const fmt = (n, digits = 0) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(digits));

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  return rows
    .map((row) => row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))))
    .map((cells) => cells.join('   '))
    .join('\n');
}

function report(pairs, bound, runs) {
  const names = Object.keys(runs);
  const statusNames = [...new Set(names.flatMap((name) => Object.keys(runs[name].figures.statuses)))].sort();
  const column = (f) => names.map((name) => f(runs[name]));
  const rows = [
    ['', ...names],
    ['wall time (s)', ...column((r) => fmt(r.figures.wallMs / 1000, 2))],
    ['lower bound (s)', ...column(() => fmt(bound.bound, 2))],
    ['wall / bound', ...column((r) => fmt(r.figures.wallMs / 1000 / bound.bound, 2))],
    ['requests sent', ...column((r) => r.stats.total.requests)],
    ['unique (feed, indicator) pairs', ...column(() => pairs.total)],
    ['retries', ...column((r) => (r.figures.retries === undefined ? 'n/a' : r.figures.retries))],
    ...statusNames.map((status) => [`answers: ${status}`, ...column((r) => r.figures.statuses[status] ?? 0)]),
    ['answers from cache', ...column((r) => r.figures.cached)],
    ['quota violations', ...column((r) => r.stats.total.violations)],
    ['over quota at the feeds (from arrivals)', ...column((r) => r.pace.overQuota)],
    [
      `busiest second at a feed (allows ${Math.floor(QUOTA.burst + QUOTA.requestsPerSecond)})`,
      ...column((r) => r.pace.peak),
    ],
    [`largest burst at a feed (quota: ${QUOTA.burst})`, ...column((r) => fmt(r.pace.burstSeen, 1))],
    ['injected 429 / 500', ...column((r) => `${r.stats.total.injected429} / ${r.stats.total.injected500}`)],
    ['p50 latency per indicator (ms)', ...column((r) => fmt(r.figures.p50Ms, 1))],
    ['p99 latency per indicator (ms)', ...column((r) => fmt(r.figures.p99Ms, 1))],
    ['CPU time (s)', ...column((r) => fmt(r.figures.cpuMs / 1000, 2))],
    ['peak RSS (MB)', ...column((r) => fmt(r.figures.maxRssKiB / 1024, 1))],
  ];
  console.log(table(rows));

  console.log('\nper feed: unique pairs, then requests sent / quota violations per client');
  const feedRows = [
    ['', 'unique', ...names.map((name) => `${name} sent/viol`)],
    ...FEEDS.map((feed) => [
      feed.id,
      pairs.perFeed[feed.id],
      ...column((r) => `${r.stats.feeds[feed.id].requests} / ${r.stats.feeds[feed.id].violations}`),
    ]),
  ];
  console.log(table(feedRows));

  for (const name of names) {
    const { figures } = runs[name];
    if (figures.invalidInputs > 0) console.log(`${name}: ${figures.invalidInputs} inputs refused as invalid`);
    if (figures.leftOpen) console.log(`${name}: the child did not exit by itself after reporting (open handles)`);
  }

  const ours = runs.ours;
  if (!ours) {
    console.log('\nacceptance (ours): n/a, ours did not report (see above)');
    return;
  }
  const ratio = ours.figures.wallMs / 1000 / bound.bound;
  const sent = ours.stats.total.requests;
  const retries = ours.figures.retries;
  const rssMb = ours.figures.maxRssKiB / 1024;
  console.log('\nacceptance (ours):');
  console.log(
    retries === undefined
      ? `requests sent = unique pairs + retries: n/a (client.feedStatus() is missing; sent ${sent}, unique pairs ${pairs.total})`
      : `requests sent = unique pairs + retries: ${sent === pairs.total + retries ? 'yes' : 'no'} (${sent} vs ${pairs.total} + ${retries})`,
  );
  console.log(
    `quota violations = 0: ${ours.stats.total.violations === 0 && ours.pace.overQuota === 0 ? 'yes' : 'no'} (${ours.stats.total.violations} refused by the feeds, ${ours.pace.overQuota} over quota in their arrival logs; largest burst a feed saw ${ours.pace.burstSeen.toFixed(1)} of ${QUOTA.burst})`,
  );
  console.log(`peak RSS < 300 MB: ${rssMb < 300 ? 'yes' : 'no'} (${rssMb.toFixed(1)})`);
  if (ratio < 1) {
    const unanswered = Object.entries(ours.figures.statuses).filter(
      ([status]) => !['ok', 'not_found', 'unsupported'].includes(status),
    );
    const detail = unanswered.map(([status, n]) => `${status} ${n}`).join(', ') || 'none';
    console.log(
      `note: ours finished under the bound, which only a client that left pairs unanswered can do (results neither ok nor not_found: ${detail}; quota violations: ${ours.stats.total.violations})`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------

const indicators = await buildInput();
const pairs = uniquePairs(indicators);
const bound = lowerBound(pairs);
const types = Object.entries(pairs.types)
  .map(([type, n]) => `${n} ${type}`)
  .join(', ');
console.log(
  `scan benchmark: ${indicators.length} indicators (${pairs.unique} unique: ${types}; from ${input.source}), ${pairs.total} unique (feed, indicator) pairs${QUICK ? ' (quick run)' : ''}`,
);
console.log(
  `emulator: latency ${LATENCY_MS} ms, quota ${QUOTA.requestsPerSecond}/s burst ${QUOTA.burst} per feed, faults 429 ${FAULTS.rate429} / 500 ${FAULTS.rate500} (seed ${FAULTS.seed}); clients: concurrency ${MAX_CONCURRENCY}`,
);
console.log(
  `lower bound ${bound.bound.toFixed(2)} s = max(quota: (${pairs.perFeed[bound.slowest]} - ${QUOTA.burst}) / ${QUOTA.requestsPerSecond}/s + ${LATENCY_MS} ms for ${bound.slowest} = ${bound.quotaTerm.toFixed(2)} s, concurrency: ${pairs.total} x ${LATENCY_MS} ms / ${MAX_CONCURRENCY} = ${bound.concurrencyTerm.toFixed(2)} s): no client is faster without breaking a quota or the concurrency limit\n`,
);

const emulator = await startFeedEmulator({
  latencyMs: LATENCY_MS,
  quotas: Object.fromEntries(FEEDS.map((feed) => [feed.id, QUOTA])),
  faults: FAULTS,
  defaultBehaviour,
  // Each feed on its own origin, as in production: HTTP clients pool connections per origin.
  portPerFeed: true,
  keepRequests: 0,
});
const tmp = await mkdtemp(join(tmpdir(), 'threatlib-bench-'));
let crashed = false;
try {
  const inputFile = join(tmp, 'indicators.json');
  await writeFile(inputFile, JSON.stringify(indicators));
  let runs = {};
  const oursRounds = [];
  // BENCH_ONLY=ours (or naive) runs one client, for profiling; the comparison needs both.
  const modes = process.env.BENCH_ONLY ? [process.env.BENCH_ONLY] : ['ours', 'naive'];
  for (let round = 0; round < ROUNDS; round += 1) {
    runs = {};
    for (const mode of orderOf(round, modes)) {
      // Counters cleared, buckets full and the fault sequence restarted: both clients meet the same conditions.
      emulator.resetCounters();
      process.stdout.write(`round ${round + 1}: running ${mode}... `);
      try {
        const figures = await runClient(mode, inputFile, emulator.endpoints);
        runs[mode] = { figures, stats: emulator.stats(), pace: feedsView(emulator.arrivals()) };
        console.log(
          `${(figures.wallMs / 1000).toFixed(1)} s, wall/bound ${(figures.wallMs / 1000 / bound.bound).toFixed(2)}, ` +
            `CPU ${(figures.cpuMs / 1000).toFixed(1)} s (${((figures.cpuMs * 1000) / indicators.length).toFixed(0)} µs per indicator)`,
        );
        if (mode === 'ours') oursRounds.push(figures);
      } catch (error) {
        crashed = true;
        console.log(`crashed: ${error.message}`);
      }
    }
  }
  console.log(ROUNDS > 1 ? '\nthe last round in detail:\n' : '');
  if (Object.keys(runs).length > 0) report(pairs, bound, runs);
  if (oursRounds.length > 0) {
    const ratio = median(oursRounds.map((f) => f.wallMs / 1000 / bound.bound));
    const cpuUs = (median(oursRounds.map((f) => f.cpuMs)) * 1000) / indicators.length;
    printFigure(
      'scan/wall-bound',
      ratio,
      `ours' wall / bound (median of ${oursRounds.length} rounds; CPU ${cpuUs.toFixed(0)} µs per indicator)`,
    );
  }
} finally {
  await emulator.close();
  await rm(tmp, { recursive: true, force: true });
}
process.exitCode = crashed ? 1 : 0;
