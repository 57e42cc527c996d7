// The root README's package table is what a new user reads first: it lists every published package, each linked to
// its folder, and calls none "planned" that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Row {
  name: string;
  link: string | undefined;
  status: string;
}

/** The rows of the table under "## Packages": `| [`@threatlib/x`](packages/x) | what | status |`. */
function tableRows(readme: string): Row[] {
  const section = readme.split(/^## Packages$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && line.includes('@threatlib/'))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const first = cells[0] ?? '';
      return {
        name: /`(@threatlib\/[\w-]+)`/.exec(first)?.[1] ?? first,
        link: /\]\(([^)]+)\)/.exec(first)?.[1],
        status: cells.at(-1) ?? '',
      };
    });
}

/** The packages a user can install: every `packages/*` that is not private, by name and folder. */
function publishedPackages(): Array<{ name: string; dir: string }> {
  return readdirSync(join(ROOT, 'packages'))
    .filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: manifest.name as string, dir: `packages/${dir}` }));
}

describe("the root README's package table", () => {
  const rows = tableRows(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const published = publishedPackages();

  it('reads a table of packages', () => {
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(published.length).toBeGreaterThanOrEqual(5);
  });

  it('lists every published package, linked to its folder, and none as planned', () => {
    const wrong = published.flatMap(({ name, dir }) => {
      const row = rows.find((r) => r.name === name);
      if (!row) return [`${name} is not in the table`];
      return [
        ...(row.link === dir ? [] : [`${name} links to ${row.link ?? 'nothing'}, not ${dir}`]),
        ...(/planned/i.test(row.status) ? [`${name} exists but is "${row.status}"`] : []),
      ];
    });
    expect(wrong).toEqual([]);
  });

  it('lists nothing but published packages and, for what does not exist yet, says "planned"', () => {
    const names = new Set(published.map((p) => p.name));
    const wrong = rows.filter((row) => !names.has(row.name) && !/planned/i.test(row.status)).map((row) => row.name);
    expect(wrong).toEqual([]);
  });
});
