// bench/memory: what threatlib keeps in memory, each part in a fresh process (run with --expose-gc):
//  - alerts: heap per stored alert beside its JSON size (the goal: at most 1.5 times), and RSS growth per alert added;
//  - scan: the peak RSS of scanning BENCH_SCAN_INDICATORS indicators (scoutMany, two emulated feeds in a process of
//    their own, default settings) beside what is retained after a full collection.
// Each part runs BENCH_ROUNDS times; the figures are medians. See ../README.md ("memory").
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, printFigure, setting } from '../support.mjs';

const ALERTS = setting('BENCH_ALERTS', 5_000, 1_000);
const SCAN_INDICATORS = setting('BENCH_SCAN_INDICATORS', 100_000, 2_000);
const ROUNDS = setting('BENCH_ROUNDS', 3, 1);
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const MB = 1024 * 1024;

function part(file, args) {
  return new Promise((resolve, reject) => {
    const child = fork(here(file), args.map(String), {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let answer;
    child.once('message', (message) => {
      answer = message;
    });
    child.once('exit', (code) => (answer ? resolve(answer) : reject(new Error(`${file} exited with ${code}`))));
  });
}

console.log(`memory benchmark: ${ROUNDS} round(s), each part in a fresh process`);
const alertRuns = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const r = await part('alerts.mjs', [ALERTS]);
  alertRuns.push(r);
  console.log(
    `  alerts, round ${round + 1}: ${r.count} hand-written alerts added: heap ${fmtBytes(r.heapBytes)} per alert, ` +
      `JSON ${fmtBytes(r.jsonBytes)} per alert (${(r.heapBytes / r.jsonBytes).toFixed(2)}x; the same alerts as plain objects parsed from that JSON: ${fmtBytes(r.plainHeapBytes)}, ${(r.plainHeapBytes / r.jsonBytes).toFixed(2)}x); RSS grew ${fmtBytes(r.rssGrowthBytes)} ` +
      `per alert while adding, ${fmtBytes(r.rssRetainedBytes)} per alert after a full collection`,
  );
}

const feeds = fork(here('feeds.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const { endpoints } = await new Promise((resolve) => feeds.once('message', resolve));
const scanRuns = [];
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const r = await part('scan.mjs', [SCAN_INDICATORS, JSON.stringify(endpoints)]);
    scanRuns.push(r);
    console.log(
      `  scan, round ${round + 1}: ${r.scanned} indicators in ${(r.ms / 1000).toFixed(1)} s (${r.threats} flagged): RSS ` +
        `${(r.beforeRss / MB).toFixed(0)} MB before, peak ${(r.peakRss / MB).toFixed(0)} MB, ${(r.afterRss / MB).toFixed(0)} MB ` +
        `after a full collection; heap retained ${(r.retainedHeap / MB).toFixed(1)} MB`,
    );
  }
} finally {
  feeds.disconnect();
}

const heapRatio = median(alertRuns.map((r) => r.heapBytes / r.jsonBytes));
console.log(
  `  medians: heap ${fmtBytes(median(alertRuns.map((r) => r.heapBytes)))} per alert of ${fmtBytes(median(alertRuns.map((r) => r.jsonBytes)))} JSON; ` +
    `RSS growth ${fmtBytes(median(alertRuns.map((r) => r.rssGrowthBytes)))} per alert added; ` +
    `scan peak RSS ${(median(scanRuns.map((r) => r.peakRss)) / MB).toFixed(0)} MB, retained heap ${(median(scanRuns.map((r) => r.retainedHeap)) / MB).toFixed(1)} MB`,
);
printFigure('memory/heap-per-alert', heapRatio, `times its JSON size (median of ${ROUNDS} run(s))`);
printFigure(
  'memory/scan-peak-over-retained',
  median(scanRuns.map((r) => (r.peakRss - r.beforeRss) / Math.max(1, r.retainedHeap))),
  `RSS growth at the peak over the heap retained, scanning ${SCAN_INDICATORS} indicators`,
);

function fmtBytes(bytes) {
  return bytes >= 10_240 ? `${(bytes / 1024).toFixed(1)} KB` : `${Math.round(bytes)} B`;
}
