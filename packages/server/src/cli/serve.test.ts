// What `threatlib serve` (and so `./dev start`) shows a person: each thing needed on its own line, logs for people
// in a terminal, the strategy it runs and why, and what to do when the port is taken.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, runCli } from './main.js';

const BIN = fileURLToPath(new URL('../../bin/threatlib.js', import.meta.url));

/** Runs `serve` in this process until it has printed its lines, then stops it; resolves with what it said. */
async function serveOnce(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  let stop!: () => void;
  const stopSignal = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let printed!: () => void;
  const ready = new Promise<void>((resolve) => {
    printed = resolve;
  });
  const done = runCli(['serve', ...argv], {
    out: (t) => {
      out += t;
      if (out.includes('Stop with Ctrl-C.')) printed();
    },
    err: (t) => {
      err += t;
    },
    env,
    cwd: mkdtempSync(join(tmpdir(), 'threatlib-serve-')),
    stopSignal,
  });
  const code = await Promise.race([done, ready.then(() => undefined)]);
  if (code !== undefined) return { code, out, err };
  stop();
  return { code: await done, out, err };
}

describe('threatlib serve: the startup lines', () => {
  it('the address, the dashboard, the routes, the docs link and the token each on its own line, then the strategy and why', async () => {
    const { code, out } = await serveOnce(['--port', '0']);
    expect(code).toBe(EXIT.ok);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^threatlib API listening on http:\/\/127\.0\.0\.1:\d+ \(embedded defaults: no config file, no keys, no network\)$/,
    );
    // The dashboard first, right under the address: a person looks before reading routes.
    expect(lines[1]).toMatch(
      /^ {2}app: +http:\/\/127\.0\.0\.1:\d+\/app\/ +\(the dashboard: sign in with the token below\)$/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}routes: +http:\/\/127\.0\.0\.1:\d+\/api\/v1$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}docs: +http:\/\/127\.0\.0\.1:\d+\/docs$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}token: +[\w-]{32} +\(shown once; set THREATLIB_API_TOKEN/),
    );
    // The quick start runs another strategy than the library's default, and says so.
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}strategy: aggressive \(the library's default is defensive\): one source is enough/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}feeds: +feed_otx, feed_abuse, feed_cti, feed_scan not configured \(set THREATLIB_FEED_OTX_API_KEY/,
      ),
    );
  });

  it('THREATLIB_STRATEGY shows as the strategy run, and a token from the environment is never printed', async () => {
    const { out } = await serveOnce(['--port', '0'], {
      THREATLIB_STRATEGY: 'defensive',
      THREATLIB_API_TOKEN: 'my-own-token-0123456789',
    });
    expect(out).toMatch(/^ {2}strategy: defensive \(the library default\)$/m);
    expect(out).toMatch(/^ {2}token: +from THREATLIB_API_TOKEN$/m);
    expect(out).not.toContain('my-own-token');
  });
});

describe('threatlib serve on a port that is taken', () => {
  it('says the port is taken and how to choose another (exit 2), and leaves nothing running', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { code, out, err } = await serveOnce(['--port', String(port)]);
      expect(code).toBe(EXIT.usage);
      expect(out).toBe('');
      expect(err).toBe(
        `threatlib serve: cannot listen: port ${port} on 127.0.0.1 is already in use (another threatlib serve, or another program).\nChoose another with --port N (e.g. threatlib serve --port 8080, or ./dev start --port 8080); --port 0 picks a free one.\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

/** `threatlib serve` as a person starts it: the real bin, in a pseudo-terminal (`script`), or with plain pipes. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
});

function spawnServe(terminal: boolean): Promise<string> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} serve --port 0`;
  const child = terminal
    ? spawn('script', ['-qec', command, '/dev/null'], { cwd: mkdtempSync(join(tmpdir(), 'threatlib-tty-')) })
    : spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: mkdtempSync(join(tmpdir(), 'threatlib-pipe-')) });
  started.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Stop with Ctrl-C.')) resolve(output);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before it was ready:\n${output}`)));
  });
}

describe('threatlib serve: logs for people in a terminal', () => {
  it('in a terminal, every log line is text (time, level, [category], message), none is JSON', async () => {
    const output = (await spawnServe(true)).replace(/\r\n/g, '\n');
    const logs = output.split('\n').filter((line) => /^\d{4}-\d\d-\d\dT/.test(line));
    expect(logs.length).toBeGreaterThanOrEqual(3);
    for (const line of logs) expect(line).toMatch(/^\S+Z (INFO |WARN ) \[\w+\] /);
    expect(output).not.toMatch(/^\{"level"/m);
    expect(output).toMatch(/^ {2}docs: +http:\/\/127\.0\.0\.1:\d+\/docs$/m);
  });

  it('with plain pipes (a log collector), the lines stay JSON', async () => {
    const output = await spawnServe(false);
    expect(output).toMatch(/^\{"level":40,.*"code":"MISSING_API_KEY"/m);
  });
});
