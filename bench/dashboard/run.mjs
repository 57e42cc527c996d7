// bench/dashboard: the dashboard's weight and how soon it is on screen. Prints the size of the app shell (every file
// the service worker precaches: the page, its script and style sheet, the manifest and icons) and of the worker,
// raw and gzip (level 9, what a server's compression would send), then the time to first render on loopback: an
// APIServer on 127.0.0.1 serving /app/, Debian's Chromium (headless, e2e/browser/chromium.ts's flags) opening it in
// a fresh context (nothing cached, no service worker) and again in the same context (the worker's precache), the
// page's own `threatlib:first-render` mark (after Preact rendered the first page) from the navigation's start.
// The median of BENCH_ROUNDS rounds (10; 2 with --quick). See ../README.md ("dashboard").
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { silentLogger, ThreatClient } from '@threatlib/core';
import { APIServer } from '@threatlib/server';
import { chromium } from 'playwright';
import { median, printFigure, setting } from '../support.mjs';

const ROUNDS = setting('BENCH_ROUNDS', 10, 2);
const APP = fileURLToPath(new URL('../../packages/server/dist/app/', import.meta.url));
const TOKEN = `bench-dashboard-token-${process.pid}-0123456789`;
// As e2e/browser/chromium.ts (which is TypeScript, for the tests): Debian's package, headless, no sandbox as root,
// no GPU, and none of Chromium's own connections to Google's hosts.
const CHROMIUM = process.env.THREATLIB_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [relative(APP, path)];
  });
}

const kib = (bytes) => bytes / 1024;
const all = files(APP).sort();
const size = (names, zip) =>
  names.reduce((sum, name) => {
    const body = readFileSync(join(APP, name));
    return sum + (zip ? gzipSync(body, { level: 9 }).length : body.length);
  }, 0);
const shell = all.filter((name) => name !== 'sw.js');
const scripts = all.filter((name) => name.startsWith('assets/') && name.endsWith('.js'));
console.log(`dashboard benchmark: the files of ${APP}`);
for (const name of all) {
  console.log(`  ${name}: ${kib(size([name], false)).toFixed(1)} KiB, gzip ${kib(size([name], true)).toFixed(1)} KiB`);
}
printFigure(
  'dashboard/app-shell-gzip',
  kib(size(shell, true)),
  'KiB gzip: the app shell (page, script, style sheet, manifest, icons)',
);
printFigure('dashboard/app-shell', kib(size(shell, false)), 'KiB raw: the app shell');
printFigure('dashboard/js-gzip', kib(size(scripts, true)), "KiB gzip: the page's JavaScript");
printFigure('dashboard/sw-gzip', kib(size(['sw.js'], true)), 'KiB gzip: the service worker (Workbox included)');

const EXAMPLE_LIST = fileURLToPath(
  new URL('../../packages/core/examples/lists/example-blocklist.txt', import.meta.url),
);
const client = new ThreatClient(
  { sources: [], lists: [{ name: 'example', file: EXAMPLE_LIST }], security: { enforceHttps: false } },
  { env: false, logger: silentLogger },
);
const server = new APIServer({
  port: 0,
  authentication: { type: 'bearer', tokens: [TOKEN] },
  rateLimit: { max: 100_000 },
});
server.mount('/api/v1', client);
const url = await server.start();
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  chromiumSandbox: false,
  args: CHROMIUM_ARGS,
});
const firstRender = (page) =>
  page.evaluate(async () => {
    for (let i = 0; i < 500 && performance.getEntriesByName('threatlib:first-render').length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const mark = performance.getEntriesByName('threatlib:first-render')[0];
    if (!mark) throw new Error('the page never rendered');
    return mark.startTime;
  });
const cold = [];
const warm = [];
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${url}/app/`);
    cold.push(await firstRender(page));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    await page.reload();
    warm.push(await firstRender(page));
    await context.close();
    console.log(
      `  round ${round + 1}: first render ${cold.at(-1).toFixed(0)} ms cold, ${warm.at(-1).toFixed(0)} ms from the precache`,
    );
  }
} finally {
  await browser.close();
  await server.stop();
}
printFigure(
  'dashboard/first-render-cold',
  median(cold),
  'ms from navigation to the first page on screen, nothing cached (median)',
);
printFigure('dashboard/first-render-warm', median(warm), 'ms, the same served by the service worker (median)');
