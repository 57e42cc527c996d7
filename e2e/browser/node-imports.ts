// What stops an entry from loading in a page: the Node built-in modules reachable from it, found by bundling it with
// esbuild for the browser as a user's bundler would (`platform: 'browser'`: the `browser` export conditions and
// package.json fields, no polyfills). Built-ins are kept out of the bundle, and esbuild's metafile says which file
// imports which, statically or with a literal `import()`.
import { builtinModules } from 'node:module';
import { build } from 'esbuild';

/** One Node built-in reachable from the entry, as `node:name`, with the files that import it. */
export interface NodeImport {
  module: string;
  /** The entry's own files as paths relative to `root`, and dependencies by package name (`undici`), sorted. */
  importers: string[];
}

// Without these, esbuild for the browser stops at the first built-in ("Could not resolve"); external, each is listed.
const EXTERNAL = ['node:*', ...builtinModules, ...builtinModules.map((name) => `${name}/*`)];

/** `node:fs`, `fs/promises`: a specifier Node answers from itself. */
function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier);
}

/** A file's name in a report: its path, or for a file of a dependency the package's name. */
function importerName(file: string): string {
  const inPackage = file.lastIndexOf('node_modules/');
  if (inPackage < 0) return file;
  const [scopeOrName = file, name] = file.slice(inPackage + 'node_modules/'.length).split('/');
  return scopeOrName.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName;
}

/**
 * Bundles `entry` (a file; TypeScript works) for the browser and returns the Node built-ins reachable from it, sorted
 * by module, each with its importers relative to `root`. An empty list means the entry bundles for a page with no
 * polyfill and no configuration.
 */
export async function nodeImportsOf(entry: string, root: string): Promise<NodeImport[]> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: EXTERNAL,
  });
  const found = new Map<string, Set<string>>();
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || !isBuiltin(imported.path)) continue;
      const module = imported.path.startsWith('node:') ? imported.path : `node:${imported.path}`;
      found.set(module, (found.get(module) ?? new Set()).add(importerName(file)));
    }
  }
  return [...found]
    .map(([module, importers]) => ({ module, importers: [...importers].sort() }))
    .sort((a, b) => a.module.localeCompare(b.module));
}
