// A server under test as its own process, the way a person or a service manager starts it: `node <bin> <args>`,
// ready when it prints the address it listens on. For the page tests that drive a real server in Chromium.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A started server process. */
export interface ServerProcess {
  /** The address it printed, without a trailing slash (`http://127.0.0.1:41234`). */
  readonly url: string;
  /** Everything it printed on stdout and stderr so far. */
  output(): string;
  /** Asks it to stop (SIGTERM), and kills it when it has not exited in `graceMs`; resolves with its exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** What to start: a Node.js script and its arguments, and how to recognise the line that says it is ready. */
export interface ServerProcessOptions {
  script: string;
  args: readonly string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Matches the first output line saying where it listens; its first group is the URL. */
  ready: RegExp;
  /** How long it may take to print that line; default 30 s. */
  timeoutMs?: number;
}

/**
 * Starts `node script ...args` in a temporary working folder and resolves once its output matches `ready`; rejects,
 * with what it printed, when it exits first or takes longer than `timeoutMs` (then it is killed).
 */
export function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [options.script, ...options.args], {
    cwd: mkdtempSync(join(tmpdir(), 'threatlib-server-')),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      void stop(0);
      reject(new Error(`${options.script} did not print where it listens in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = options.ready.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({ url: url.replace(/\/$/, ''), output: () => output, stop });
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.script} exited (${code}) before it was ready:\n${output}`));
    });
  });
}
