// The OASIS STIX validators (stix2-patterns, stix2-validator), run through e2e/tools/stix-validators.sh: core's STIX
// tests, cloud's Sentinel tests and the TAXII interoperability tests check what they write with them.
import { describeWithTools, runTool, toolScript } from './python-tool.js';

const SCRIPT = toolScript('stix-validators.sh');

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
  const { code, stdout, stderr } = await runTool(SCRIPT, [], JSON.stringify(request));
  if (code !== 0) throw new Error(`e2e/tools/stix-validators.sh exited with ${code}:\n${stderr.slice(-3000)}`);
  return JSON.parse(stdout);
}

/** `describe` for tests that need the OASIS validators (see {@link describeWithTools}). */
export function describeWithOasisValidators(title: string, body: () => void): void {
  describeWithTools(title, { needs: 'the OASIS STIX validators', scripts: [SCRIPT] }, body);
}
