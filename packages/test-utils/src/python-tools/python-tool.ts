// The Python tools tests run as independent implementations (the OASIS STIX validators, PyMISP, medallion and
// taxii2-client, from PyPI), each through a script of e2e/tools/ that installs it, pinned, into a virtualenv under
// .cache/ on first use (`--install`) and then reads its request from stdin. Tests that need one skip, with the reason
// as the skipped test's name, when THREATLIB_E2E is unset, and fail loudly when it is set and a tool cannot be
// installed or run. Nothing here imports @threatlib/core, so core's own tests can use it too (through an alias: core
// cannot depend on this package, which depends on core).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, it } from 'vitest';

/** The e2e/tools/ folder, from src/python-tools/ and from dist/python-tools/ alike. */
const TOOLS = new URL('../../../../e2e/tools/', import.meta.url);

/** What a tool's script did: its exit code, and what it wrote. */
export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The path of the script `name` of e2e/tools/ (`stix-validators.sh`). */
export function toolScript(name: string): string {
  return fileURLToPath(new URL(name, TOOLS));
}

/** Runs `bash <script> ...args` with `input` on its stdin; resolves with what it did, whatever its exit code. */
export function runTool(script: string, args: readonly string[], input: string): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * `describe` for tests that need Python tools: skipped with a message naming `needs` when `THREATLIB_E2E` is unset;
 * when it is set, each of `scripts` installs its tools first (a few seconds once, then nothing) and a failed install
 * fails the tests.
 *
 * @example
 * ```ts
 * describeWithTools('PyMISP reads our feed', { needs: 'PyMISP', scripts: [toolScript('pymisp.sh')] }, () => { ... });
 * ```
 */
export function describeWithTools(
  title: string,
  tools: { needs: string; scripts: readonly string[] },
  body: () => void,
): void {
  describe(title, () => {
    if (!process.env.THREATLIB_E2E) {
      it.skip(
        `needs ${tools.needs} from PyPI (python3; set THREATLIB_E2E=1 to install under .cache/ and run these tests)`,
      );
      return;
    }
    beforeAll(async () => {
      for (const script of tools.scripts) {
        const { code, stderr } = await runTool(script, ['--install'], '');
        if (code !== 0) {
          throw new Error(
            `THREATLIB_E2E is set but ${tools.needs} could not be installed (${script} --install exited with ${code}):\n${stderr.slice(-3000)}`,
          );
        }
      }
    }, 600_000);
    body();
  });
}
