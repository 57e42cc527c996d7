// CONTRIBUTING.md says where each kind of code lives and which entry exports it (issue 23); this keeps it matching the
// tree: every entry of core's exports map and every workspace package is named, and every path it names exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);
const text = readFileSync(new URL('CONTRIBUTING.md', ROOT), 'utf8');
const exportsMap: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('packages/core/package.json', ROOT), 'utf8'),
).exports;
const packages = readdirSync(new URL('packages/', ROOT), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The paths CONTRIBUTING.md names in backquotes, without those with a placeholder (`<vendor>`) or a glob. */
function namedPaths(): string[] {
  return [...text.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\/?)`/g)]
    .map(([, path]) => path as string)
    .filter((path) => !path.startsWith('@threatlib/') && !path.startsWith('./'));
}

/** A path as CONTRIBUTING.md writes it: from the root, or from the `src/` of one of the packages. */
function exists(path: string): boolean {
  if (existsSync(new URL(path, ROOT))) return true;
  return packages.some((name) => existsSync(new URL(`packages/${name}/${path}`, ROOT)));
}

describe('CONTRIBUTING.md', () => {
  it("names every entry of @threatlib/core's exports map", () => {
    const entries = Object.keys(exportsMap).filter((entry) => entry !== './package.json' && entry !== '.');
    expect(entries.filter((entry) => !text.includes(`${entry} `) || !text.includes(`\`${entry}\``))).toEqual([]);
  });

  it('names every workspace package', () => {
    expect(packages.filter((name) => !text.includes(name))).toEqual([]);
  });

  it('names only paths that exist', () => {
    const paths = namedPaths();
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((path) => !exists(path))).toEqual([]);
  });
});
