// `import { ThreatClient } from '@threatlib/core'` must bundle for a page with no polyfill (issue 24, point 1). This
// bundles core's main entry for the browser with esbuild (e2e/browser/node-imports.ts) and lists every Node built-in
// still reachable from it, with the files and packages that import each: first those a page loads with the entry (each
// one a crash at import), then those reached only through an `import()` (a chunk loaded when that code first runs:
// the page loads, and that one use fails). The first list must be empty: a `node:` module loaded with the entry fails
// the test (issue 23's acceptance). The whole list is checked in (main-entry-node-imports.txt): a change to it is a
// reviewed change, and the browser work shrinks the second list to nothing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type NodeImport, nodeImportsOf } from '../../../../e2e/browser/node-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const FIXTURES = 'src/browser/__fixtures__/node-imports';

/**
 * Two lists, one line per built-in and one indented line per importer: those a page loads with the entry, then those
 * only an `import()` reaches.
 */
function report(imports: NodeImport[]): string {
  const atImport = imports
    .filter((found) => found.atImport.length > 0)
    .map(({ module, atImport: importers }) => [module, ...importers.map((name) => `  ${name}`)].join('\n'));
  const onFirstUse = imports
    .map(({ module, importers, atImport: loaded }) => ({
      module,
      importers: importers.filter((name) => !loaded.includes(name)),
    }))
    .filter((found) => found.importers.length > 0)
    .map(({ module, importers }) => [module, ...importers.map((name) => `  ${name}`)].join('\n'));
  return [
    '# Loaded with the entry (a page that imports it fails to load):',
    ...atImport,
    '',
    '# Loaded on first use, behind import() (the page loads; that use fails):',
    ...onFirstUse,
  ].join('\n');
}

describe("core's main entry bundled for the browser", () => {
  it('loads no Node built-in with the entry, and reaches these only on first use', { timeout: 60_000 }, async () => {
    const imports = await nodeImportsOf(here('../index.ts'), ROOT);
    const loadedWithEntry = imports
      .filter((found) => found.atImport.length > 0)
      .map(({ module, atImport }) => `${module} (imported by ${atImport.join(', ')})`);
    expect(loadedWithEntry, 'Node built-ins a page would load with the main entry').toEqual([]);
    await expect(`${report(imports)}\n`).toMatchFileSnapshot('./main-entry-node-imports.txt');
  });

  it('finds a built-in however it is imported, and nothing in a module that has none', async () => {
    const imports = await nodeImportsOf(here('./__fixtures__/node-imports/entry.ts'), ROOT);
    expect(imports).toEqual([
      { module: 'node:crypto', importers: [`${FIXTURES}/dynamic.ts`], atImport: [] },
      { module: 'node:events', importers: [`${FIXTURES}/entry.ts`], atImport: [`${FIXTURES}/entry.ts`] },
      { module: 'node:fs/promises', importers: [`${FIXTURES}/entry.ts`], atImport: [`${FIXTURES}/entry.ts`] },
      { module: 'node:os', importers: [`${FIXTURES}/entry.ts`], atImport: [] },
      { module: 'node:path', importers: [`${FIXTURES}/reexport.ts`], atImport: [`${FIXTURES}/reexport.ts`] },
    ]);
    expect(await nodeImportsOf(here('../indicators/parse-indicator.ts'), ROOT)).toEqual([]);
  });
});
