#!/usr/bin/env node
// Who imports what from @threatlib/core: every name each entry of core's exports map offers (values and types, read
// by TypeScript from the entry's source), and which readers name it: each package's src, its tests, the benchmarks,
// the e2e tests, the READMEs and core's examples. It is how the cut between the main entry and the subpaths was chosen
// (issue 23), and how to check a later one: a name no reader uses has no business on an entry.
//
//   node scripts/core-imports.mjs            a table per entry: name, kind, readers
//   node scripts/core-imports.mjs --json     the same as JSON
//   node scripts/core-imports.mjs --unused   only the names nobody outside core's own source imports
//
// Readers are found by reading import and export statements (`import {a, type B} from '@threatlib/core/x'`,
// `import * as ns` then `ns.name`, `typeof import('@threatlib/core').Name`, `vi.mock` of an entry), in .ts, .mts, .js,
// .mjs and .md files (a README's code blocks are read like code). Core's own source imports its modules by relative
// path, never through an entry, so it is no reader here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORE = join(ROOT, 'packages/core');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.cache', '.state', '.turbo', '.changeset', 'coverage']);
const EXTENSIONS = /\.(ts|mts|js|mjs|md)$/;

/** Core's entries from its exports map: subpath -> source file. */
function coreEntries() {
  const pkg = JSON.parse(readFileSync(join(CORE, 'package.json'), 'utf8'));
  const entries = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'string' ? target : target.types;
    if (!types?.endsWith('.d.ts')) continue;
    const name = subpath === '.' ? '@threatlib/core' : `@threatlib/core/${subpath.slice(2)}`;
    entries[name] = join(CORE, types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
  }
  return entries;
}

/** Each entry's exported names, with `value` (there at run time) or `type`. */
function exportedNames(entries) {
  const program = ts.createProgram(Object.values(entries), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const result = {};
  for (const [entry, file] of Object.entries(entries)) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`cannot read ${file}`);
    result[entry] = new Map(
      checker.getExportsOfModule(symbol).map((exported) => {
        const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const typeOnly = exported.declarations?.some((d) => ts.isTypeOnlyExportDeclaration?.(d)) ?? false;
        const isValue = !typeOnly && (target.flags & ts.SymbolFlags.Value) !== 0;
        return [exported.name, isValue ? 'value' : 'type'];
      }),
    );
  }
  return result;
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* files(join(dir, entry.name));
    } else if (EXTENSIONS.test(entry.name)) yield join(dir, entry.name);
  }
}

/** Which kind of reader a file is: `server src`, `siem test`, `bench`, `e2e`, `core README`, `core examples`... */
function readerOf(file) {
  const path = relative(ROOT, file);
  const parts = path.split('/');
  if (parts[0] === 'packages') {
    const pkg = parts[1];
    if (path.endsWith('.md')) return `${pkg} README`;
    if (parts[2] === 'examples') return `${pkg} examples`;
    if (parts[2] === 'src') return /\.test(-suite)?\.ts$|\.test-suite\.ts$/.test(path) ? `${pkg} test` : `${pkg} src`;
    return `${pkg} ${parts[2]}`;
  }
  if (parts[0] === 'e2e') return 'e2e';
  if (parts[0] === 'bench') return 'bench';
  if (path.endsWith('.md')) return 'README';
  return parts[0];
}

const SPECIFIER = String.raw`['"](@threatlib/core(?:/[\w-]+)?)['"]`;
const NAMED = new RegExp(String.raw`\b(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*${SPECIFIER}`, 'g');
const NAMESPACE = new RegExp(String.raw`\bimport\s+(?:type\s+)?\*\s+as\s+(\w+)\s+from\s*${SPECIFIER}`, 'g');
const IMPORT_TYPE = new RegExp(String.raw`\bimport\(\s*${SPECIFIER}\s*\)((?:\.\w+)?)`, 'g');

/** [entry, name] pairs a file's text uses; a whole-entry use (`typeof import(entry)`) is reported as name `*`. */
function usesIn(text) {
  const uses = [];
  for (const [, names, entry] of text.matchAll(NAMED)) {
    for (const part of names.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]
        .trim();
      if (name) uses.push([entry, name]);
    }
  }
  for (const [, alias, entry] of text.matchAll(NAMESPACE)) {
    for (const [, name] of text.matchAll(new RegExp(String.raw`\b${alias}\.(\w+)`, 'g'))) uses.push([entry, name]);
    // A namespace walked as a whole (`Object.keys(ns)`, `{...ns}`): every name of the entry.
    if (new RegExp(String.raw`(?:Object\.\w+\(|\.\.\.)${alias}\b|:\s*${alias}\b`).test(text)) uses.push([entry, '*']);
  }
  for (const [, entry, member] of text.matchAll(IMPORT_TYPE)) uses.push([entry, member ? member.slice(1) : '*']);
  return uses;
}

const entries = coreEntries();
const names = exportedNames(entries);
/** entry -> name -> Set of readers */
const readers = new Map(Object.keys(entries).map((entry) => [entry, new Map()]));
const unknown = [];
for (const file of files(ROOT)) {
  // Core's own source reaches its modules by relative path; its README and examples are readers like any other.
  const path = relative(ROOT, file);
  if (path.startsWith('packages/core/src/') && !path.endsWith('.md')) continue;
  if (path === 'scripts/core-imports.mjs') continue;
  const text = readFileSync(file, 'utf8');
  for (const [entry, name] of usesIn(text)) {
    const byName = readers.get(entry);
    if (!byName) {
      unknown.push(`${path}: ${entry}`);
      continue;
    }
    const used = name === '*' ? [...names[entry].keys()] : [name];
    for (const one of used) {
      if (name !== '*' && !names[entry].has(one)) {
        unknown.push(`${path}: ${one} from ${entry}`);
        continue;
      }
      if (!byName.has(one)) byName.set(one, new Set());
      byName.get(one).add(name === '*' ? `${readerOf(file)} (whole entry)` : readerOf(file));
    }
  }
}

// A README that names an entry's export in code (a code span or block) without importing it still promises it to its
// readers: `client.alerts` is a `ClientAlerts`, catch `VaultLockedError`. Such a mention counts, marked as one.
for (const file of files(ROOT)) {
  const path = relative(ROOT, file);
  if (!path.endsWith('README.md') || path.includes('__fixtures__')) continue;
  const text = readFileSync(file, 'utf8');
  const code = [...text.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map(([span]) => span).join('\n');
  for (const [entry, exported] of Object.entries(names)) {
    const byName = readers.get(entry);
    for (const name of exported.keys()) {
      if (!new RegExp(String.raw`(?<![\w.])${name}\b`).test(code)) continue;
      if (!byName.has(name)) byName.set(name, new Set());
      const reader = readerOf(file);
      if (![...byName.get(name)].includes(reader)) byName.get(name).add(`${reader} (mentioned)`);
    }
  }
}

const rows = Object.entries(names).map(([entry, exported]) => ({
  entry,
  names: [...exported]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, kind]) => ({
      name,
      kind,
      readers: [...(readers.get(entry).get(name) ?? [])].sort(),
    })),
}));

const args = new Set(process.argv.slice(2));
if (args.has('--json')) {
  process.stdout.write(`${JSON.stringify({ entries: rows, unresolved: unknown }, null, 2)}\n`);
} else {
  for (const { entry, names: list } of rows) {
    const values = list.filter((n) => n.kind === 'value').length;
    // Readers that walk an entry whole (a check over every export) do not make a name used.
    const direct = (n) => n.readers.filter((r) => !r.endsWith('(whole entry)'));
    const unused = list.filter((n) => direct(n).length === 0);
    process.stdout.write(
      `\n## ${entry}: ${list.length} names (${values} values, ${list.length - values} types), ${unused.length} named by no reader\n\n`,
    );
    const shown = args.has('--unused') ? unused : list;
    if (shown.length === 0) continue;
    process.stdout.write('| name | kind | readers |\n|---|---|---|\n');
    for (const n of shown) process.stdout.write(`| ${n.name} | ${n.kind} | ${direct(n).join(', ') || '-'} |\n`);
  }
  if (unknown.length > 0) {
    process.stdout.write(`\n## Imports naming what no entry exports\n\n${unknown.map((u) => `- ${u}`).join('\n')}\n`);
  }
}
