import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { portOpen } from '@threatlib/core/testing';

/** A port nobody listens on now, on the loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The FerretDB binary `e2e/services up ferretdb` built (its version read from the service script). */
function ferretdbBinary(): string {
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const script = readFileSync(join(root, 'e2e/services.d/ferretdb.sh'), 'utf8');
  const version = /^ferretdb_version=(\S+)$/m.exec(script)?.[1];
  const cache = process.env.THREATLIB_CACHE_DIR ?? join(root, '.cache');
  const binary = join(cache, `ferretdb-${version}`, 'ferretdb');
  if (!existsSync(binary)) throw new Error(`no FerretDB binary at ${binary}: run bash e2e/services up ferretdb`);
  return binary;
}

/**
 * A FerretDB of one test's own: the e2e service's binary on a free loopback port with its data in a temporary
 * directory, which the test may stop and start again without touching the shared server other test files use at the
 * same time (stopping that one made them hang in the parallel run).
 */
export class PrivateFerretDB {
  readonly uri: string;
  readonly #port: number;
  readonly #dir: string;
  readonly #binary: string;
  #child: ChildProcess | undefined;

  private constructor(port: number) {
    this.#port = port;
    this.uri = `mongodb://127.0.0.1:${port}`;
    this.#binary = ferretdbBinary();
    this.#dir = mkdtempSync(join(tmpdir(), 'threatlib-ferretdb-'));
    mkdirSync(join(this.#dir, 'data'));
  }

  /** Starts one on a free port and waits until it answers. */
  static async start(): Promise<PrivateFerretDB> {
    const server = new PrivateFerretDB(await freePort());
    await server.start();
    return server;
  }

  /** Starts the server (again, on the same port and data) and resolves once its port accepts connections. */
  async start(): Promise<void> {
    if (this.#child) return;
    const child = spawn(
      this.#binary,
      [
        '--handler=sqlite',
        `--sqlite-url=file:${join(this.#dir, 'data')}/`,
        `--listen-addr=127.0.0.1:${this.#port}`,
        '--debug-addr=-',
        `--state-dir=${this.#dir}`,
        '--telemetry=disable',
        '--log-level=error',
      ],
      { stdio: 'ignore' },
    );
    this.#child = child;
    const deadline = Date.now() + 30_000;
    while (!(await portOpen(this.#port))) {
      if (child.exitCode !== null) throw new Error(`FerretDB on port ${this.#port} exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`FerretDB on port ${this.#port} did not listen within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the server (SIGTERM, SIGKILL after 15 s) and resolves once the process is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }

  /** Stops the server and removes its data. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
