import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ThreatConfig } from '@threatlib/core';
import type { MessageQueueOptions } from '../options/processor-options.js';

/** What the loss tests send: valid indicators (every tenth on a local blocklist) and malformed messages. */
export interface Workload {
  /** Message bodies in sending order. */
  bodies: string[];
  /** The indicators the processed queue must end up holding. */
  indicators: Set<string>;
  /** The bodies the dead-letter queue must end up holding. */
  malformed: Set<string>;
  /** Listed (malicious) indicators: each must raise a threat. */
  listed: Set<string>;
  /** A client configuration that scans offline: no feeds, the blocklist only. */
  config: ThreatConfig;
}

/** `total` messages of which `malformed` are broken in five different ways, shuffled in deterministically. */
export function makeWorkload(label: string, total: number, malformed: number): Workload {
  const run = `${label}-${process.pid}-${Date.now().toString(36)}`;
  const indicators = new Set<string>();
  const listed = new Set<string>();
  const broken = new Set<string>();
  const valid: string[] = [];
  for (let i = 0; i < total - malformed; i += 1) {
    const indicator = `h${i}.${run}.threatlib-loss.net`;
    indicators.add(indicator);
    if (i % 10 === 0) listed.add(indicator);
    valid.push(JSON.stringify(i % 2 === 0 ? { indicator, type: 'domain' } : { indicator }));
  }
  const kinds = [
    (i: number) => `not JSON at all #${i} ${run}`,
    (i: number) => JSON.stringify({ type: 'ipv4', note: `no indicator #${i} ${run}` }),
    (i: number) => JSON.stringify({ indicator: `not an indicator #${i} ${run} %%%` }),
    (i: number) => JSON.stringify({ indicator: '203.0.113.9', type: `weird-${i}-${run}` }),
    (i: number) => JSON.stringify([`an array #${i}`, run]),
  ];
  const bad: string[] = [];
  for (let i = 0; i < malformed; i += 1) {
    const body = (kinds[i % kinds.length] as (i: number) => string)(i);
    broken.add(body);
    bad.push(body);
  }
  // Spread the malformed ones evenly through the valid ones.
  const bodies: string[] = [];
  const every = Math.max(1, Math.floor(valid.length / Math.max(1, bad.length)));
  for (let i = 0; i < valid.length; i += 1) {
    bodies.push(valid[i] as string);
    if (i % every === 0 && bad.length > 0) bodies.push(bad.shift() as string);
  }
  bodies.push(...bad);
  const dir = mkdtempSync(join(tmpdir(), 'threatlib-queue-'));
  const listFile = join(dir, 'blocklist.txt');
  writeFileSync(listFile, `${[...listed].join('\n')}\n`);
  return {
    bodies,
    indicators,
    malformed: broken,
    listed,
    config: {
      sources: [],
      // One source can reach no consensus of 2 or 3: aggressive calls a threat on one malicious answer.
      strategy: 'aggressive',
      lists: [{ name: 'loss-blocklist', file: listFile, verdict: 'malicious' }],
    },
  };
}

/** The pipeline in a child process of its own, which the test may SIGKILL. */
export interface PipelineProcess {
  child: ChildProcess;
  /** Resolves once the client started and consumes. */
  ready: Promise<void>;
  /** Resolves with the exit code or signal when the process ends. */
  exited: Promise<number | NodeJS.Signals | null>;
}

const fixture = fileURLToPath(new URL('../__fixtures__/pipeline-process.ts', import.meta.url));
const resolveHook = fileURLToPath(new URL('../__fixtures__/ts-resolve.mjs', import.meta.url));

/** Starts the pipeline consumer process with a client configuration and queue options. */
export function spawnPipeline(config: ThreatConfig, queue: MessageQueueOptions): PipelineProcess {
  const child = fork(fixture, [], {
    execArgv: ['--import', resolveHook, '--no-warnings'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void exited.then((how) => reject(new Error(`the pipeline process exited (${String(how)}) before it was ready`)));
  });
  child.send({ config, queue });
  return { child, ready, exited };
}
