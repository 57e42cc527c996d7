// What stops an entry from loading in a page: the Node built-in modules reachable from it, found by bundling it with
// esbuild for the browser as a user's bundler would (`platform: 'browser'`: the `browser` export conditions and
// package.json fields, no polyfills). Built-ins are kept out of the bundle, and esbuild's metafile says which file
// imports which, statically or with a literal `import()`.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';

/** One Node built-in reachable from the entry, as `node:name`, with the files that import it. */
export interface NodeImport {
  module: string;
  /** The entry's own files as paths relative to `root`, and dependencies by package name (`undici`), sorted. */
  importers: string[];
  /**
   * Of `importers`, those a page that imports the entry loads at once: reached from the entry through static imports
   * alone. Empty when every path to the built-in goes through an `import()`, which a bundler splits into a chunk the
   * page loads only when that code first runs: the page loads, and fails (or is refused) only on that use.
   */
  atImport: string[];
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

/** The esbuild options both scans share: a page's bundle, kept in memory, with core's own imports from source. */
function browserBundle(root: string) {
  return {
    absWorkingDir: root,
    bundle: true,
    platform: 'browser' as const,
    format: 'esm' as const,
    write: false as const,
    metafile: true as const,
    logLevel: 'silent' as const,
    external: EXTERNAL,
    plugins: [ownImportsFromSource(root)],
  };
}

/**
 * Bundles `entry` (a file; TypeScript works) for the browser and returns the Node built-ins reachable from it, sorted
 * by module, each with its importers relative to `root`. An empty list means the entry bundles for a page with no
 * polyfill and no configuration.
 */
export async function nodeImportsOf(entry: string, root: string): Promise<NodeImport[]> {
  const result = await build({
    entryPoints: [entry],
    ...browserBundle(root),
  });
  const { inputs } = result.metafile;
  const loadedAtImport = staticallyReached(inputs, relative(root, entry));
  const found = new Map<string, { importers: Set<string>; atImport: Set<string> }>();
  for (const [file, input] of Object.entries(inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || !isBuiltin(imported.path)) continue;
      const module = imported.path.startsWith('node:') ? imported.path : `node:${imported.path}`;
      const entry = found.get(module) ?? { importers: new Set<string>(), atImport: new Set<string>() };
      entry.importers.add(importerName(file));
      if (loadedAtImport.has(file) && imported.kind !== 'dynamic-import') entry.atImport.add(importerName(file));
      found.set(module, entry);
    }
  }
  return [...found]
    .map(([module, { importers, atImport }]) => ({
      module,
      importers: [...importers].sort(),
      atImport: [...atImport].sort(),
    }))
    .sort((a, b) => a.module.localeCompare(b.module));
}

/**
 * The package's own `imports` (`#http-transport`) resolved as a bundler resolves them for a page (the `browser`
 * condition, else `default`), but to the source file that builds the chosen `./dist/*.js` target (`./src/*.ts`), so
 * the check needs no build; and before the tsconfig's `paths`, which name Node's module for the type checker.
 */
function ownImportsFromSource(root: string): Plugin {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    imports?: Record<string, string | Record<string, string>>;
  };
  return {
    name: 'own-imports-from-source',
    setup(bundler) {
      bundler.onResolve({ filter: /^#/ }, ({ path }) => {
        const target = manifest.imports?.[path];
        const chosen = typeof target === 'string' ? target : (target?.browser ?? target?.default);
        if (chosen === undefined) return { errors: [{ text: `${path} is not in package.json "imports"` }] };
        return { path: join(root, chosen.replace(/^\.\/dist\/(.*)\.js$/, 'src/$1.ts')) };
      });
    },
  };
}

/** The files a page loads with the entry: those reached from it through imports that are not `import()`. */
function staticallyReached(inputs: Metafile['inputs'], entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    for (const imported of inputs[file]?.imports ?? []) {
      if (!imported.external && imported.kind !== 'dynamic-import') pending.push(imported.path);
    }
  }
  return reached;
}

/** The modules of a bundle: every input file, and those a page loads with the entry (the rest only on first use). */
export interface BundledModules {
  /**
   * Every file with code in the bundle (not those tree-shaken to nothing), relative to `root`: a dependency's with
   * its path under node_modules.
   */
  all: string[];
  /** Of `all`, those reached from the entry through static imports alone, sorted. */
  atImport: string[];
}

/**
 * Bundles `source` (module text, resolved from `root`: `export * as m from './src/x.ts'`) for the browser as
 * {@link nodeImportsOf} does, and returns its modules: which code a page loads with the import and which only when
 * an `import()` first runs.
 */
export async function modulesOf(source: string, root: string): Promise<BundledModules> {
  const result = await build({
    stdin: { contents: source, resolveDir: root, sourcefile: 'entry.ts', loader: 'ts' },
    ...browserBundle(root),
  });
  const { inputs, outputs } = result.metafile;
  // A module esbuild read but tree-shook to nothing is among the inputs; only those with bytes in the output count.
  const kept = new Set(
    Object.values(outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([file]) => file),
    ),
  );
  kept.delete('entry.ts');
  return {
    all: [...kept].sort(),
    atImport: [...staticallyReached(inputs, 'entry.ts')].filter((file) => kept.has(file)).sort(),
  };
}
