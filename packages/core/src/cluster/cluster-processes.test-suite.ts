// What the cluster's multi-process tests share: client processes, a private redis-server the test may stop, and the
// feed emulator's view of a run. Test support only (not exported).
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ThreatConfig } from '../config/schema.js';
import { portOpen } from '../testing/e2e-services.js';

const fixture = fileURLToPath(new URL('./__fixtures__/cluster-process.ts', import.meta.url));
const resolveHook = fileURLToPath(new URL('./__fixtures__/ts-resolve.mjs', import.meta.url));

/** One feed's answers as a client process reports them, by indicator. */
export type Reported = Record<string, Array<{ feed: string; status: string; verdict: string; cached: boolean }>>;

/** A client in a process of its own (`__fixtures__/cluster-process.ts`). */
export class ClientProcess {
  readonly child: ChildProcess;
  readonly events: Array<{ event: string; detail: unknown }> = [];
  readonly ready: Promise<void>;
  #waiters: Array<(message: Record<string, unknown>) => boolean> = [];

  constructor(config: ThreatConfig) {
    this.child = fork(fixture, [], {
      execArgv: ['--import', resolveHook, '--no-warnings'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message: Record<string, unknown>) => {
      if (typeof message.event === 'string') this.events.push({ event: message.event, detail: message.detail });
      this.#waiters = this.#waiters.filter((waiter) => !waiter(message));
    });
    this.ready = this.#next((m) => m.ready === true).then(() => undefined);
    this.child.send({ config });
  }

  /** Scans `indicators` (all of them) and resolves with every result. */
  async scan(indicators: readonly string[]): Promise<Reported> {
    const done = this.#next((m) => m.results !== undefined);
    this.child.send({ go: true, indicators });
    return (await done).results as Reported;
  }

  /** Resolves once the process reported `event` (`clusterDegraded`, `clusterRestored`) `count` times in all. */
  async sawEvent(event: string, count = 1, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.filter((e) => e.event === event).length < count) {
      if (Date.now() > deadline) throw new Error(`no ${event} from the client process within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ stop: true });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  #next(match: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`the client process exited (${signal ?? code}) before answering`));
      this.child.once('exit', onExit);
      this.#waiters.push((message) => {
        if (!match(message)) return false;
        this.child.off('exit', onExit);
        resolve(message);
        return true;
      });
    });
  }
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A redis-server of the test's own (the shared e2e one must never be stopped), on a port of its own, without
 * persistence: `stop()` kills it as a crash would, `start()` brings it back on the same port, empty.
 */
export class PrivateRedis {
  readonly port: number;
  #server: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
  }

  /** Starts one (with `requirepass` when `password` is given). */
  static async start(options: { password?: string } = {}): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    redis.#password = options.password;
    await redis.start();
    return redis;
  }

  #password: string | undefined;

  async start(): Promise<void> {
    const server = spawn(
      '/usr/bin/redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        ...(this.#password ? ['--requirepass', this.#password] : []),
      ],
      { stdio: 'ignore' },
    );
    this.#server = server;
    const deadline = Date.now() + 10_000;
    while (!(await portOpen(this.port))) {
      if (server.exitCode !== null) throw new Error(`redis-server exited with ${server.exitCode} on port ${this.port}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${this.port} within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  }
}
