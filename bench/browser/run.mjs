// bench/browser: the size budget of core in a page (issue 24, point 8) and the time a page takes to scan cached
// indicators. A page that imports `ThreatClient` from '@threatlib/core' (page.mjs) is bundled with esbuild as a user's
// bundler would (`platform: 'browser'`, ESM, minified, code splitting so that `import()` becomes a chunk loaded on
// first use), and the bench prints the minified and gzip (level 9) size of what the page loads with the import (the
// entry and the chunks it imports statically), of everything emitted, and of the argon2 implementation, with whether
// argon2 is loaded with the import or only on first use (the goal is under 120 KiB gzip without it). Then Debian's
// Chromium (e2e/browser/chromium.ts's launch) opens the page from a loopback server, which also forwards the page's
// `browser.corsProxy` requests to the feed emulator: the page scans BENCH_INDICATORS indicators (1,000) once through
// the feed, then BENCH_ROUNDS times (5; 2 with --quick) from the verdict cache, and the median of the cached passes is
// printed. See ../README.md ("browser").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { startFeedEmulator } from '@threatlib/feed-emulator';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { chromiumLaunchOptions, chromiumVersion } from '../../e2e/browser/chromium.ts';
import { fmt, GOALS, median, printFigure, setting } from '../support.mjs';

const INDICATORS = setting('BENCH_INDICATORS', 1000, 1000);
const ROUNDS = setting('BENCH_ROUNDS', 5, 2);
const PAGE = fileURLToPath(new URL('./page.mjs', import.meta.url));
const OUT = mkdtempSync(join(tmpdir(), 'threatlib-bench-browser-'));
// The argon2 implementations: @noble/hashes' (and blake2, which only its argon2 uses) and hash-wasm's.
const ARGON2 = /node_modules\/(@noble\/hashes\/(argon2|blake2|_blake)\.js|hash-wasm\/)/;
const kib = (bytes) => bytes / 1024;
const gzipOf = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

/**
 * The bundle of page.mjs into `outdir`, with `options` added. A user's install has no tsconfig.json of core's (it is
 * not published; its `paths` name Node's modules for the type checker), so none is read: `tsconfigRaw` stands for
 * the user's own.
 */
function bundle(outdir, options = {}) {
  return build({
    entryPoints: { page: PAGE },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    splitting: true,
    minify: true,
    outdir,
    metafile: true,
    logLevel: 'silent',
    tsconfigRaw: '{}',
    ...options,
  });
}

/** The outputs a page loads with the entry: the entry and every chunk reached through static imports. */
function loadedAtImport(outputs, entry) {
  const reached = new Set();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file) || !outputs[file]) continue;
    reached.add(file);
    for (const imported of outputs[file].imports) {
      if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
    }
  }
  return reached;
}

/** Minified and gzip bytes of `files` (paths relative to the working directory, as esbuild's metafile names them). */
function sizeOf(files) {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    raw += readFileSync(file).length;
    gzip += gzipOf(file);
  }
  return { raw, gzip };
}

console.log(`browser benchmark: ${PAGE} bundled by esbuild (platform browser, esm, splitting, minify) into ${OUT}`);

// 1. As a user's bundler would: nothing configured. A Node built-in reachable from the entry, even behind an import(),
// stops esbuild ("Could not resolve"), so this says whether the import bundles with no configuration at all.
let bundlesAsIs = true;
try {
  await bundle(join(OUT, 'as-is'));
  console.log('  bundles with no configuration: yes');
} catch (error) {
  bundlesAsIs = false;
  const unresolved = new Map();
  for (const { text, location } of error.errors ?? []) {
    const module = /Could not resolve "([^"]+)"/.exec(text)?.[1] ?? text;
    const importer = (location?.file ?? '?').replace(/^.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '');
    unresolved.set(module, [...(unresolved.get(module) ?? []), importer]);
  }
  console.log(
    `  ERROR: bundles with no configuration: NO. esbuild stops at ${error.errors?.length ?? '?'} imports of Node ` +
      'built-ins reached from the entry (behind an import(): the page would load, that use would fail):',
  );
  for (const [module, importers] of [...unresolved].sort()) {
    console.log(`    ${module} <- ${[...new Set(importers)].sort().join(', ')}`);
  }
  console.log(
    '  the sizes below are measured with the Node built-ins left external (as a bundler told to ignore them)',
  );
}

// 2. The bundle measured: as-is when that worked, else with the built-ins external.
const external = bundlesAsIs ? [] : ['node:*', ...builtinModules, ...builtinModules.map((name) => `${name}/*`)];
const measuredDir = join(OUT, 'page');
const { metafile } = await bundle(measuredDir, { external });
const outputs = Object.fromEntries(Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js')));
const entry = Object.keys(outputs).find((file) => outputs[file].entryPoint);
const atImport = loadedAtImport(outputs, entry);
const argon2Files = Object.keys(outputs).filter((file) =>
  Object.keys(outputs[file].inputs).some((input) => ARGON2.test(input)),
);
const argon2AtImport = argon2Files.filter((file) => atImport.has(file));
const argon2Bytes = Object.values(outputs)
  .flatMap((output) => Object.entries(output.inputs))
  .filter(([input]) => ARGON2.test(input))
  .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
const loaded = sizeOf(atImport);
const all = sizeOf(Object.keys(outputs));
console.log(
  `  ${Object.keys(outputs).length} files; loaded with the import: ${atImport.size} ` +
    `(${kib(loaded.raw).toFixed(1)} KiB minified, ${kib(loaded.gzip).toFixed(1)} KiB gzip); ` +
    `everything: ${kib(all.raw).toFixed(1)} KiB minified, ${kib(all.gzip).toFixed(1)} KiB gzip`,
);

// What the import loads, by package (core by folder), minified bytes: where a budget would be won.
const byPackage = new Map();
for (const file of atImport) {
  for (const [input, { bytesInOutput }] of Object.entries(outputs[file].inputs)) {
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(input)?.[1];
    const name = inPackage ?? input.replace(/^.*packages\/core\/dist\/([^/]+)\/.*$/, 'core/$1');
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
}
console.log('  loaded with the import, by package (minified KiB):');
for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(`    ${name.padEnd(28)} ${kib(bytes).toFixed(1).padStart(7)}`);
}

// 3. Without argon2: the same bundle with the argon2 modules replaced by stubs of the names core imports (blake2 then
// goes too), so the gzip figure is exact (a part of a gzip stream has no size of its own).
const ARGON2_MODULES = /node_modules\/(@noble\/hashes\/argon2\.js|hash-wasm\/)/;
const STUB = 'export const argon2id = undefined, argon2idAsync = undefined;';
const { metafile: bare } = await bundle(join(OUT, 'without-argon2'), {
  external,
  plugins: [
    {
      name: 'without-argon2',
      setup(bundler) {
        bundler.onLoad({ filter: ARGON2_MODULES }, () => ({ contents: STUB, loader: 'js' }));
      },
    },
  ],
});
const bareOutputs = Object.fromEntries(Object.entries(bare.outputs).filter(([file]) => file.endsWith('.js')));
const bareLoaded = sizeOf(
  loadedAtImport(
    bareOutputs,
    Object.keys(bareOutputs).find((file) => bareOutputs[file].entryPoint),
  ),
);
console.log(
  `  argon2 implementation (${argon2Bytes ? 'reachable' : 'not reachable'} from the import): ` +
    `${kib(argon2Bytes).toFixed(1)} KiB minified, ` +
    (argon2AtImport.length > 0
      ? `LOADED WITH THE IMPORT (in ${argon2AtImport.map((file) => basename(file)).join(', ')}), not in a chunk of its own loaded on first use`
      : argon2Files.length > 0
        ? `in ${argon2Files.map((file) => basename(file)).join(', ')}, loaded on first use`
        : 'not in the bundle (the worker file is emitted by bundlers that follow new Worker(new URL(...)))'),
);
printFigure(
  'browser/page-gzip',
  kib(loaded.gzip),
  `KiB gzip: what a page loads with \`import { ThreatClient }\` (${kib(loaded.raw).toFixed(1)} KiB minified${bundlesAsIs ? '' : ', Node built-ins external'}${argon2AtImport.length > 0 ? ', argon2 included' : ''})`,
);
printFigure(
  'browser/page-gzip-without-argon2',
  kib(bareLoaded.gzip),
  `KiB gzip: the same without the argon2 implementation (${kib(bareLoaded.raw).toFixed(1)} KiB minified)`,
);
printFigure('browser/all-chunks-gzip', kib(all.gzip), 'KiB gzip: every file emitted, lazy chunks included');
// The goal in one line: what the import loads under the budget, and argon2 not among it.
const BUDGET_KIB = GOALS['browser/page-gzip'].atMost;
const underBudget = kib(loaded.gzip) <= BUDGET_KIB;
const argon2Lazy = argon2AtImport.length === 0;
console.log(
  `goal (issue 24, point 8: at most ${BUDGET_KIB} KiB gzip loaded with the import, argon2 on first use): ` +
    `${underBudget && argon2Lazy ? 'MET' : 'NOT MET'}: ${kib(loaded.gzip).toFixed(1)} KiB gzip loaded with the import ` +
    `(${underBudget ? `${(BUDGET_KIB - kib(loaded.gzip)).toFixed(1)} KiB under` : `${(kib(loaded.gzip) - BUDGET_KIB).toFixed(1)} KiB over`}), ` +
    `argon2 ${argon2Lazy ? 'on first use' : 'LOADED WITH THE IMPORT'}`,
);

// 4. The page in Chromium: a loopback server serves it and forwards `corsProxy` requests to the feed emulator.
const emulator = await startFeedEmulator();
const target = emulator.endpoints.feed_abuse;
const html = '<!doctype html><meta charset="utf-8"><title>bench</title><script type="module" src="/page.js"></script>';
const server = createServer(async (request, response) => {
  try {
    if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(html);
      return;
    }
    if (request.url?.startsWith('/proxy/')) {
      // The cors-anywhere convention: the full feed URL after the prefix. Only the emulator's feed is forwarded.
      const url = decodeURIComponent(request.url.slice('/proxy/'.length));
      if (!url.startsWith(target)) {
        response.writeHead(403).end('not a feed of this bench');
        return;
      }
      const headers = {};
      for (const name of ['key', 'accept', 'content-type']) {
        if (request.headers[name]) headers[name] = request.headers[name];
      }
      const answer = await fetch(url, { method: request.method, headers });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      response.end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const name = request.url?.slice(1).split('?')[0] ?? '';
    if (!/^[\w.-]+\.js$/.test(name)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(measuredDir, name)));
  } catch (error) {
    response.writeHead(502).end(String(error));
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const indicators = Array.from({ length: INDICATORS }, (_, i) => `45.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
console.log(`chromium: ${chromiumVersion() ?? '(no version)'}; ${fmt(INDICATORS)} indicators, ${ROUNDS} cached passes`);
const browser = await chromium.launch(chromiumLaunchOptions());
let run;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(origin);
  await page.waitForFunction(() => typeof globalThis.threatlibBench === 'function', undefined, { timeout: 30_000 });
  if (errors.length > 0) throw new Error(`the page failed to load: ${errors.join('; ')}`);
  run = await page.evaluate((args) => globalThis.threatlibBench(args), {
    indicators,
    rounds: ROUNDS,
    endpoint: target,
    corsProxy: `${origin}/proxy/`,
  });
} finally {
  await browser.close();
  await new Promise((resolve) => server.close(resolve));
  await emulator.close();
  rmSync(OUT, { recursive: true, force: true });
}
console.log(
  `  through the feed: ${fmt(run.first.ms)} ms, ${fmt(run.first.results)} results (${fmt(run.first.cached)} cached; ` +
    `${Object.entries(run.first.statuses)
      .map(([status, n]) => `${status} ${fmt(n)}`)
      .join(', ')})`,
);
run.cachedPasses.forEach((pass, i) => {
  console.log(
    `  cached pass ${i + 1}: ${pass.ms.toFixed(1)} ms, ${fmt(pass.results)} results (${fmt(pass.cached)} cached)`,
  );
});
const uncached = run.cachedPasses.reduce((sum, pass) => sum + pass.results - pass.cached, 0);
if (uncached > 0) console.log(`  WARNING: ${uncached} results of the cached passes were not from the cache`);
printFigure(
  'browser/scan-cached',
  median(run.cachedPasses.map((pass) => pass.ms)),
  `ms: ${fmt(INDICATORS)} cached indicators scanned in the page (scoutMany, median of ${ROUNDS} passes)`,
);
