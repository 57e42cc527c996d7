// PyMISP (the MISP project's Python library, from PyPI), run through e2e/tools/pymisp.sh, which installs it pinned
// into a virtualenv under .cache/ on first use. Tests that need it skip, with the reason as the skipped test's name,
// when THREATLIB_E2E is unset, and fail loudly when it is set and PyMISP cannot be installed or run.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../../e2e/tools/pymisp.sh', import.meta.url));

/** What `misp_feed.py check` found: `errors` empty when MISP's rules and PyMISP take the feed as it is. */
export interface PyMispCheck {
  errors: string[];
  events: Record<
    string,
    {
      info: string;
      attributes: { type: string; value: string; category: string; to_ids: boolean; comment: string }[];
    }
  >;
  hashes: number;
}

/** One event for `misp_feed.py generate` to build with PyMISP's API (see that script for every field). */
export interface PyMispEventSpec {
  uuid?: string;
  info: string;
  date?: string;
  timestamp?: number;
  tags?: string[];
  attributes?: {
    type: string;
    value: string;
    to_ids?: boolean;
    comment?: string;
    deleted?: boolean;
    disable_correlation?: boolean;
    tags?: string[];
  }[];
  objects?: { name: string; deleted?: boolean; attributes: { relation: string; value: string; to_ids?: boolean }[] }[];
}

/** Reads the feed in `directory` as MISP's feed fetcher and PyMISP do. */
export async function pymispCheck(directory: string): Promise<PyMispCheck> {
  return JSON.parse(await run(['check', directory], ''));
}

/** Writes a feed into `directory` with PyMISP: `MISPEvent.to_feed` for each event, then `feed_meta_generator`. */
export async function pymispGenerate(directory: string, events: PyMispEventSpec[]): Promise<{ events: string[] }> {
  return JSON.parse(await run(['generate', directory], JSON.stringify({ events })));
}

async function run(args: string[], input: string): Promise<string> {
  const { code, stdout, stderr } = await spawnScript(args, input);
  if (code !== 0) throw new Error(`e2e/tools/pymisp.sh ${args[0]} exited with ${code}:\n${stderr.slice(-3000)}`);
  return stdout;
}

function spawnScript(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
 * `describe` for tests that need PyMISP: skipped with a message when `THREATLIB_E2E` is unset; when it is set,
 * PyMISP is installed first (a few seconds once, then nothing) and a failed install fails the tests.
 */
export function describeWithPyMisp(title: string, body: () => void): void {
  describe(title, () => {
    if (!process.env.THREATLIB_E2E) {
      it.skip('needs PyMISP from PyPI (python3; set THREATLIB_E2E=1 to install it under .cache/ and run these tests)');
      return;
    }
    beforeAll(async () => {
      const { code, stderr } = await spawnScript(['--install'], '');
      if (code !== 0) {
        throw new Error(`THREATLIB_E2E is set but PyMISP could not be installed:\n${stderr.slice(-3000)}`);
      }
    }, 600_000);
    body();
  });
}
