// No source file of a package is over 500 lines (issue 23): a file past that holds more than one idea, and the
// next change to it is harder to review. The one exception is core's configuration schema, which is one idea (the
// documented options, each with its TSDoc) and reads best whole. Tests count: they live in src beside the code.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LIMIT = 500;
const EXCEPTIONS = new Set(['packages/core/src/config/schema.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(?:ts|tsx|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const lineCount = (path: string) => readFileSync(path, 'utf8').replace(/\n$/, '').split('\n').length;

describe('package source files', () => {
  const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true }).filter((e) => e.isDirectory());
  const files = packages.flatMap((p) => {
    try {
      return sourceFiles(join(ROOT, 'packages', p.name, 'src'));
    } catch {
      return [];
    }
  });

  it('are read from every package', () => {
    expect(files.length).toBeGreaterThan(500);
  });

  it(`are at most ${LIMIT} lines each, but the configuration schema`, () => {
    const over = files
      .map((path) => ({ file: relative(ROOT, path), lines: lineCount(path) }))
      .filter(({ file, lines }) => lines > LIMIT && !EXCEPTIONS.has(file));
    expect(over).toEqual([]);
  });
});
