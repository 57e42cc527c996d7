// The OASIS STIX validators (stix2-patterns, stix2-validator; Python, from PyPI), run through
// e2e/tools/stix-validators.sh, which installs them pinned into a virtualenv under .cache/ on first use. Tests that
// need them skip, with the reason as the skipped test's name, when THREATLIB_E2E is unset, and fail loudly when it is
// set and the validators cannot be installed or run.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../../e2e/tools/stix-validators.sh', import.meta.url));

/** What the validators said about one pattern: an empty `errors` means it passed. */
export interface PatternVerdict {
  pattern: string;
  errors: string[];
}

/** What stix2-validator said about one bundle, with every SHOULD counted as an error (`--strict`). */
export interface BundleVerdict {
  valid: boolean;
  errors: string[];
  warnings: string[];
}

/** Runs the validators over `patterns` and `bundles` (objects or JSON text), in one Python process. */
export async function runOasisValidators(request: {
  patterns?: readonly string[];
  bundles?: readonly unknown[];
}): Promise<{ patterns: PatternVerdict[]; bundles: BundleVerdict[] }> {
  const { code, stdout, stderr } = await run([], JSON.stringify(request));
  if (code !== 0) throw new Error(`e2e/tools/stix-validators.sh exited with ${code}:\n${stderr.slice(-3000)}`);
  return JSON.parse(stdout);
}

function run(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
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
 * `describe` for tests that need the OASIS validators: skipped with a message when `THREATLIB_E2E` is unset; when it
 * is set, the validators are installed first (a few seconds once, then nothing) and a failed install fails the tests.
 */
export function describeWithOasisValidators(title: string, body: () => void): void {
  describe(title, () => {
    if (!process.env.THREATLIB_E2E) {
      it.skip(
        'needs the OASIS STIX validators from PyPI (python3; set THREATLIB_E2E=1 to install them under .cache/ and run these tests)',
      );
      return;
    }
    beforeAll(async () => {
      const { code, stderr } = await run(['--install'], '');
      if (code !== 0) {
        throw new Error(
          `THREATLIB_E2E is set but the OASIS STIX validators could not be installed:\n${stderr.slice(-3000)}`,
        );
      }
    }, 600_000);
    body();
  });
}
