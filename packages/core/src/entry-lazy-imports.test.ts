import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 27 (import time): packages that only a rare first call needs are imported by that call, not when core is
// imported. Follows the main entry's relative imports (and the package's own `#` imports as Node resolves them),
// static ones only, or static and dynamic ones.

const SRC = dirname(fileURLToPath(import.meta.url));

async function subpathImports(): Promise<Record<string, string>> {
  const manifest = JSON.parse(await readFile(resolve(SRC, '../package.json'), 'utf8')) as {
    imports?: Record<string, { default: string }>;
  };
  return Object.fromEntries(
    Object.entries(manifest.imports ?? {}).map(([name, target]) => [
      name,
      resolve(SRC, target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
    ]),
  );
}

/** The packages the modules reachable from `entry` import at run time (`import type` excluded). */
async function packagesFrom(entry: string, { dynamic }: { dynamic: boolean }): Promise<Set<string>> {
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

describe("core's main entry loads on first use what only a first call needs", () => {
  it('oauth4webapi (a token request) and the portable Argon2id (a vault without crypto.argon2)', async () => {
    const entry = resolve(SRC, 'index.ts');
    const atImport = await packagesFrom(entry, { dynamic: false });
    const atAll = await packagesFrom(entry, { dynamic: true });
    for (const lazy of ['oauth4webapi', '@noble/hashes/argon2.js']) {
      expect(atAll, `${lazy} is still reached, on first use`).toContain(lazy);
      expect(atImport, `${lazy} is not imported with core`).not.toContain(lazy);
    }
    // The scan does follow the static graph.
    expect(atImport).toContain('zod');
    expect(atImport).toContain('tldts');
  });
});
