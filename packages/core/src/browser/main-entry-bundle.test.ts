// `import { ThreatClient } from '@threatlib/core'` must bundle for a page with no polyfill (issue 24, point 1). This
// bundles core's main entry for the browser with esbuild (e2e/browser/node-imports.ts) and lists every Node built-in
// still reachable from it, with the files and packages that import each. The list is the state of things, checked in
// (main-entry-node-imports.txt): a change to it is a reviewed change, and the browser work shrinks it to nothing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type NodeImport, nodeImportsOf } from '../../../../e2e/browser/node-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** One line per built-in, then one indented line per importer. */
function report(imports: NodeImport[]): string {
  return imports
    .map(({ module, importers }) => [module, ...importers.map((name) => `  ${name}`)].join('\n'))
    .join('\n');
}

describe("core's main entry bundled for the browser", () => {
  it('reaches these Node built-ins today (each one is a crash at import in a page)', { timeout: 60_000 }, async () => {
    const imports = await nodeImportsOf(here('../index.ts'), ROOT);
    await expect(`${report(imports)}\n`).toMatchFileSnapshot('./main-entry-node-imports.txt');
  });

  it('finds a built-in however it is imported, and nothing in a module that has none', async () => {
    const imports = await nodeImportsOf(here('./__fixtures__/node-imports/entry.ts'), ROOT);
    expect(imports).toEqual([
      { module: 'node:crypto', importers: ['src/browser/__fixtures__/node-imports/dynamic.ts'] },
      { module: 'node:events', importers: ['src/browser/__fixtures__/node-imports/entry.ts'] },
      { module: 'node:fs/promises', importers: ['src/browser/__fixtures__/node-imports/entry.ts'] },
      { module: 'node:path', importers: ['src/browser/__fixtures__/node-imports/reexport.ts'] },
    ]);
    expect(await nodeImportsOf(here('../indicators/parse-indicator.ts'), ROOT)).toEqual([]);
  });
});
