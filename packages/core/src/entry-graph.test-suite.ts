// Test support: the packages a core entry reaches, read from the sources (relative imports followed, and the
// package's own `#` imports as Node resolves them, the `default` condition). For the tests that keep a package out
// of an entry, or out of its import-time graph.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Core's `src/`. */
export const CORE_SRC = dirname(fileURLToPath(import.meta.url));

async function subpathImports(): Promise<Record<string, string>> {
  const manifest = JSON.parse(await readFile(resolve(CORE_SRC, '../package.json'), 'utf8')) as {
    imports?: Record<string, { default: string }>;
  };
  return Object.fromEntries(
    Object.entries(manifest.imports ?? {}).map(([name, target]) => [
      name,
      resolve(CORE_SRC, target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
    ]),
  );
}

/**
 * The packages the modules reachable from `entry` import at run time (`import type` excluded): through static
 * imports only (what loads with the entry), or through `import()` too (`dynamic`: everything it may load).
 */
export async function packagesFrom(entry: string, { dynamic }: { dynamic: boolean }): Promise<Set<string>> {
  const subpaths = await subpathImports();
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    const found = source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'|import\('([^']+)'\)/gms);
    for (const [, statically, lazily] of found) {
      if (lazily !== undefined && !dynamic) continue;
      const specifier = (statically ?? lazily) as string;
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (specifier.startsWith('#')) queue.push(subpaths[specifier] ?? specifier);
      else packages.add(specifier);
    }
  }
  return packages;
}
