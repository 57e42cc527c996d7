// Summarises V8 CPU profiles (`node --cpu-prof`): the functions with the most self time, each with its share of the
// busy time (idle left out), the busy time by package (threatlib's own packages by name, dependencies by theirs,
// node's internals, garbage collection), and threatlib's functions with the most total time (their own and that of
// everything they call, each sample counted once per function however deep it recurses). Used to write where our CPU goes (README.md, "Where our CPU goes").
//   node tools/profile-summary.mjs [--top N] [--ours] <file.cpuprofile | directory>...
// --ours lists only functions in threatlib's own packages. Several profiles are added together.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

const args = process.argv.slice(2);
let top = 25;
let oursOnly = false;
const files = [];
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === '--top') top = Number(args[++i]);
  else if (args[i] === '--ours') oursOnly = true;
  else if (statSync(args[i]).isDirectory()) {
    for (const name of readdirSync(args[i])) if (name.endsWith('.cpuprofile')) files.push(join(args[i], name));
  } else files.push(args[i]);
}
if (files.length === 0) {
  console.error('usage: node tools/profile-summary.mjs [--top N] [--ours] <file.cpuprofile | directory>...');
  process.exit(2);
}

/** What a frame's URL belongs to: `@threatlib/<package>`, a dependency's name, `node` or `(vm)`. */
function owner(url) {
  if (!url) return '(native or vm)';
  if (url.startsWith('node:')) return 'node';
  const path = decodeURIComponent(url.replace(/^file:\/\//, ''));
  const dependency = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency && !dependency[1].startsWith('@threatlib/')) return dependency[1];
  const workspace = /\/packages\/([^/]+)\//.exec(path) ?? /@threatlib\/([^/]+)/.exec(path);
  if (workspace) return `@threatlib/${workspace[1]}`;
  if (/\/bench\//.test(path)) return 'bench';
  return 'other';
}

const self = new Map();
const inclusive = new Map();
const byOwner = new Map();
let busy = 0;
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const keyOf = ({ functionName, url, lineNumber }) =>
    `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''} [${owner(url)}]`;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    total += us;
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    if (functionName === '(idle)') return;
    busy += us;
    const who = functionName === '(garbage collector)' ? '(garbage collector)' : owner(url);
    byOwner.set(who, (byOwner.get(who) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''} [${who}]`;
    self.set(key, (self.get(key) ?? 0) + us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at).callFrame;
      if (!frame.url.includes('/packages/') && !frame.url.includes('@threatlib/')) continue;
      const frameKey = keyOf(frame);
      if (seen.has(frameKey)) continue;
      seen.add(frameKey);
      inclusive.set(frameKey, (inclusive.get(frameKey) ?? 0) + us);
    }
  });
}

const pct = (us) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
console.log(
  `${files.length} profile(s): ${(total / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (idle left out)`,
);
console.log('\nbusy time by package:');
for (const [who, us] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(us)}  ${who}`);
console.log(`\ntop ${top} functions by self time${oursOnly ? " (threatlib's own packages)" : ''}:`);
const rows = [...self].filter(([key]) => !oursOnly || key.includes('[@threatlib/')).sort((a, b) => b[1] - a[1]);
for (const [key, us] of rows.slice(0, top)) console.log(`  ${pct(us)}  ${key}`);
console.log(`\ntop ${top} of threatlib's functions by total time (self and callees):`);
for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${key}`);
