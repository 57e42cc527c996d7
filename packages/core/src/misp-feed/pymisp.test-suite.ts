// PyMISP (the MISP project's Python library, from PyPI), run through e2e/tools/pymisp.sh with the Python tools'
// runner of test-utils, which installs it pinned into a virtualenv under .cache/ on first use.
import { describeWithTools, runTool, toolScript } from '@threatlib/test-utils/python-tools';

const SCRIPT = toolScript('pymisp.sh');

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
  const { code, stdout, stderr } = await runTool(SCRIPT, args, input);
  if (code !== 0) throw new Error(`e2e/tools/pymisp.sh ${args[0]} exited with ${code}:\n${stderr.slice(-3000)}`);
  return stdout;
}

/**
 * `describe` for tests that need PyMISP: skipped with a message when `THREATLIB_E2E` is unset; when it is set,
 * PyMISP is installed first (a few seconds once, then nothing) and a failed install fails the tests.
 */
export function describeWithPyMisp(title: string, body: () => void): void {
  describeWithTools(title, { needs: 'PyMISP', scripts: [SCRIPT] }, body);
}
