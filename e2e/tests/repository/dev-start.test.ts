// `./dev start` prints what the server says, not the install and build: their output is kept in a log file and
// shown only when they fail. Run against a copy of ./dev whose toolchain is a stand-in pnpm (85 lines of output,
// failing on demand) and whose server is a stand-in that prints its arguments: the script's own behaviour, without
// rebuilding the workspace under the running tests.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DEV = fileURLToPath(new URL('../../../dev', import.meta.url));

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'threatlib-dev-'));
  copyFileSync(DEV, join(root, 'dev'));
  chmodSync(join(root, 'dev'), 0o755);
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'fake-bin'));
  writeFileSync(join(root, 'scripts', 'toolchain.sh'), `export PATH="${join(root, 'fake-bin')}:$PATH"\n`);
  const pnpm = join(root, 'fake-bin', 'pnpm');
  writeFileSync(
    pnpm,
    [
      '#!/usr/bin/env bash',
      'for i in $(seq 1 85); do echo "build output line $i ($*)"; done',
      'if [ "$1" = run ] && [ -n "$FAKE_BUILD_FAILS" ]; then echo "error TS2322: the build broke" >&2; exit 2; fi',
      '',
    ].join('\n'),
  );
  chmodSync(pnpm, 0o755);
  mkdirSync(join(root, 'packages', 'server', 'bin'), { recursive: true });
  writeFileSync(
    join(root, 'packages', 'server', 'bin', 'threatlib.js'),
    "console.log('server started with', process.argv.slice(2).join(' '));\n",
  );
  return root;
}

function devStart(root: string, env: Record<string, string> = {}) {
  const run = spawnSync('bash', [join(root, 'dev'), 'start', '--port', '0'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: root, THREATLIB_CACHE_DIR: join(root, '.cache'), ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, output: `${run.stdout}${run.stderr}` };
}

describe('./dev start', () => {
  it('keeps the install and build output in a log file: one line about it, then what the server prints', () => {
    const root = checkout();
    const { code, stdout, stderr } = devStart(root);
    expect(code).toBe(0);
    expect(stderr).toBe(`threatlib: installing and building (output in ${join(root, '.cache', 'dev-setup.log')})\n`);
    expect(stdout).toBe('server started with serve --port 0\n');
  });

  it('shows the whole output when the install or build fails, and does not start the server', () => {
    const root = checkout();
    const { code, output } = devStart(root, { FAKE_BUILD_FAILS: '1' });
    expect(code).toBe(1);
    expect(output).toContain('build output line 85 (run build)');
    expect(output).toContain('error TS2322: the build broke');
    expect(output).toMatch(/threatlib: install or build failed \(the output above is also in .*dev-setup\.log\)/);
    expect(output).not.toContain('server started');
  });

  it('./dev help prints the commands and nothing of the script itself', () => {
    const root = checkout();
    const help = spawnSync('bash', [join(root, 'dev'), 'help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/\.\/dev start +install, build \(quietly\)/);
    expect(help.stdout).not.toContain('set -euo pipefail');
  });
});
