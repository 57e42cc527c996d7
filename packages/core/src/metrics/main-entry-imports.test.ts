import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The package's own `#...` imports as Node resolves them (the `default` condition), as source files. */
async function nodeSubpathImports(): Promise<Record<string, string>> {
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

/** Every package the modules reachable from `entry` import at run time (`import type` excluded). */
async function runtimePackages(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  const subpaths = await nodeSubpathImports();
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    const statements = source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'|import\('([^']+)'\)/gms);
    for (const [, from, dynamic] of statements) {
      const specifier = (from ?? dynamic) as string;
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (specifier.startsWith('#')) queue.push(subpaths[specifier] ?? specifier);
      else packages.add(specifier);
    }
  }
  return packages;
}

describe("core's main entry", () => {
  it('never imports prom-client nor nodemailer: metrics are a subpath, nodemailer loads only for e-mail alerts', async () => {
    const packages = await runtimePackages(resolve(SRC, 'index.ts'));
    expect(packages).not.toContain('prom-client');
    expect(packages).not.toContain('nodemailer');
    // The scan does follow the graph: the client's own packages are found.
    expect(packages).toContain('undici');
    expect(await runtimePackages(resolve(SRC, 'metrics/index.ts'))).toContain('prom-client');
  });

  it('nor does the integration entry, and neither loads vitest: the compliance suites are the testing entry', async () => {
    const integration = await runtimePackages(resolve(SRC, 'integration/index.ts'));
    expect(integration).toContain('undici');
    for (const packages of [integration, await runtimePackages(resolve(SRC, 'index.ts'))]) {
      expect(packages).not.toContain('prom-client');
      expect(packages).not.toContain('nodemailer');
      expect(packages).not.toContain('vitest');
    }
    expect(await runtimePackages(resolve(SRC, 'testing/index.ts'))).toContain('vitest');
  });
});
