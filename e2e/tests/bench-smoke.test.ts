// The benchmarks are not timed tests: each prints figures and is judged by a reader (bench/README.md). What CI checks
// is that each still runs: spawned once with --quick (small counts, two rounds), it must exit 0 and print its
// `figure <name>:` lines, whatever the figures say (no goal is asserted here). The quick runs go at once, side by side:
// their figures are meaningless under that load, and the whole file takes about as long as the slowest (storage).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ProbedService, probeService } from '@threatlib/core/testing';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumMissing } from '../browser/chromium.js';

const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));
/** A quick run takes seconds to a minute on a busy two-core machine; this is only a bound on a hang. */
const TIMEOUT_MS = 300_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `bench/<script> --quick` with node (and --expose-gc, as the bench scripts do) and collects what it printed. */
function quick(script: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', script, '--quick'], {
      cwd: BENCH,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BENCH_QUICK: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS - 5_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The `figure <name>: <number> ...; goal ...` lines a run printed, by name. */
function figures(stdout: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const match of stdout.matchAll(/^figure ([\w/-]+): (-?[\d.]+|NaN|Infinity) .*; (?:goal|no goal)/gm)) {
    found.set(match[1] as string, Number(match[2]));
  }
  return found;
}

/** Asserts a quick run of `script` completed and printed a finite figure for each of `names`. */
async function completes(script: string, names: string[]): Promise<void> {
  const run = await quick(script);
  const printed = figures(run.stdout);
  const context = `${script} exited with ${run.code ?? run.signal}\n--- stdout\n${run.stdout.slice(-4_000)}\n--- stderr\n${run.stderr.slice(-4_000)}`;
  expect(run.code, context).toBe(0);
  for (const name of names) {
    expect(printed.has(name), `${context}\n(no "figure ${name}:" line)`).toBe(true);
    expect(Number.isFinite(printed.get(name)), `${context}\n(figure ${name} is not a number)`).toBe(true);
  }
}

const [rabbitmq, kafka, elasticsearch, ferretdb, redis] = await Promise.all([
  probeService({ name: 'rabbitmq', port: 5672 }),
  probeService({ name: 'kafka', port: 9092 }),
  probeService({ name: 'elasticsearch', port: 19200 }),
  probeService({ name: 'ferretdb', port: 27018 }),
  probeService({ name: 'redis', port: 16379 }),
]);

/**
 * One bench's test, run beside the others (one suite, so that vitest runs them all at once, up to its concurrency).
 * A bench that needs a service that is down is skipped with the reason, or fails under THREATLIB_E2E (as
 * `describeWithServices` does for a suite).
 */
function bench(script: string, names: string[], services: ProbedService[] = []): void {
  const down = services.filter((service) => !service.reachable);
  const title = `${script} --quick completes and prints ${names.map((name) => `figure ${name}`).join(', ')}`;
  if (down.length === 0) {
    it.concurrent(title, () => completes(script, names), TIMEOUT_MS);
    return;
  }
  const where = down.map((s) => `${s.name} at 127.0.0.1:${s.port}`).join(', ');
  const start = `./dev services up ${down.map((s) => s.name).join(' ')}`;
  if (!process.env.THREATLIB_E2E) {
    it.skip(`${title}: needs ${where} (start it with: ${start}; THREATLIB_E2E=1 makes this fail instead)`);
    return;
  }
  it(`${title}: needs ${where}`, () => {
    throw new Error(`THREATLIB_E2E is set but ${where} does not answer; run: ${start}`);
  });
}

describe('every benchmark completes in quick mode and prints its figures (no goal asserted)', () => {
  // The slowest first, so that the file takes about as long as it.
  bench('storage/run.mjs', ['storage/document-store', 'storage/search-index'], [ferretdb, elasticsearch]);
  bench('siem/run.mjs', ['siem/splunk', 'siem/elasticsearch'], [elasticsearch]);
  bench('queue/run.mjs', ['queue/rabbitmq', 'queue/kafka'], [rabbitmq, kafka]);
  bench('scale/run.mjs', ['scale/four-over-one'], [rabbitmq, redis]);
  bench('server/run.mjs', ['server/scan']);
  bench('scan/run.mjs', ['scan/wall-bound']);
  bench('memory/run.mjs', ['memory/heap-per-alert', 'memory/scan-peak-over-retained']);
  bench('import/run.mjs', ['import/core']);
  bench('webhooks/run.mjs', ['webhooks']);
  bench('logging/run.mjs', ['logging/disabled-call']);
  // It opens the page in Chromium: skipped with the reason without it (the browser tests fail then, under E2E).
  if (existsSync(CHROMIUM)) {
    bench('dashboard/run.mjs', [
      'dashboard/app-shell-gzip',
      'dashboard/js-gzip',
      'dashboard/first-render-cold',
      'dashboard/first-render-warm',
    ]);
    bench('browser/run.mjs', ['browser/page-gzip', 'browser/page-gzip-without-argon2', 'browser/scan-cached']);
  } else {
    it.skip(`dashboard/run.mjs --quick: needs ${chromiumMissing()}`);
    it.skip(`browser/run.mjs --quick: needs ${chromiumMissing()}`);
  }
});
