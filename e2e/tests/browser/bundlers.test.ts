// "One import for both runtimes" (issue 24, point 1): a page that does `import { ThreatClient } from '@threatlib/core'`
// is bundled by esbuild (platform browser), Vite (an app build, its default configuration) and webpack 5 (its default
// configuration, target web), with no polyfill, no fallback and no option about Node.js. Each build must succeed with
// no warning about a Node built-in, and its output must hold no `node:` specifier and no `require()` of a built-in.
// Each bundle is then served from loopback and run in Chromium: it makes a client whose feed (URLhaus, the feed
// emulator's) is reached through `browser.corsProxy` (a loopback proxy beside the page), adds a list parsed from text,
// and scans an indicator of each, seeing both malicious, with no console error, no exception and no request to
// another origin.
//
// Core is installed as a user has it: its package.json and dist copied into node_modules of a fresh project (in the
// workspace, core's tsconfig.json would send esbuild and webpack, which both read `paths`, to its TypeScript source).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { build as esbuild } from 'esbuild';
import { type Browser, chromium } from 'playwright';
import { type Logger as ViteLogger, build as viteBuild } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import webpack from 'webpack';
import { chromiumLaunchOptions } from '../../browser/chromium.js';
import { describeWithChromium } from '../../browser/describe-with-chromium.js';
import { openWatchedPage } from '../../browser/watched-page.js';

const CORE = fileURLToPath(new URL('../../../packages/core/', import.meta.url));
const NO_PROBLEMS = { consoleErrors: [], pageErrors: [], failedRequests: [], otherOrigins: [] };
/** On the page's list. */
const LISTED = '45.148.10.240';
/** Malicious at the emulated URLhaus. */
const FLAGGED = '198.51.100.61';

/** The page's code: what a user writes, and nothing about Node.js. */
const main = (feedEndpoint: string) => `import { ThreatClient } from '@threatlib/core';
import { parseLocalList } from '@threatlib/core/lists';

try {
  const client = new ThreatClient({
    sources: ['feed_urls'],
    strategy: 'aggressive',
    apiKeys: { feed_urls: { key: 'urlhaus-page-key-0123456789', endpoint: '${feedEndpoint}' } },
    security: { enforceHttps: false },
    browser: { corsProxy: location.origin + '/proxy/' },
    // The client's log lines go to the console's error stream in a page (logging.stderr): errors only, so that any
    // line there is a real error.
    logging: { level: 'error' },
  });
  client.addList(parseLocalList('${LISTED}\\n', { name: 'blocklist' }));
  const flagged = await client.correlate('${FLAGGED}');
  const listed = await client.correlate('${LISTED}');
  await client.stop();
  document.body.dataset.flagged = flagged.verdict;
  document.body.dataset.listed = listed.verdict;
} catch (error) {
  document.body.dataset.error = String(error?.stack ?? error);
}
`;
const HTML = (script: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>threatlib</title></head><body><script type="module" src="${script}"></script></body></html>\n`;

/** A fresh project with core installed as published (package.json and dist; its dependencies linked) and the page. */
function makeProject(feedEndpoint: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'threatlib-bundlers-'));
  const installed = join(dir, 'node_modules', '@threatlib', 'core');
  cpSync(join(CORE, 'package.json'), join(installed, 'package.json'));
  cpSync(join(CORE, 'dist'), join(installed, 'dist'), { recursive: true });
  symlinkSync(join(CORE, 'node_modules'), join(installed, 'node_modules'));
  writeFileSync(join(dir, 'main.js'), main(feedEndpoint));
  writeFileSync(join(dir, 'index.html'), HTML('./main.js'));
  return dir;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const BUILTIN = `(?:node:[a-z_/]+|${builtinModules.filter((name) => !name.startsWith('_')).join('|')})`;
/**
 * Where bundled JavaScript still loads a Node built-in: an `import` or `export ... from` of a `node:` specifier, an
 * `import()` of one, or a `require()` of any built-in. (A `'node:fs'` handed to `process.getBuiltinModule`, which
 * core uses for Node-only features, is a string, not a module to load: a page never asks for it.)
 */
function nodeReferences(outDir: string): string[] {
  const loads = new RegExp(
    `(?:\\bfrom\\s*|\\bimport\\s*\\(?\\s*)["'\`]node:[a-z_/]+["'\`]|\\brequire\\(\\s*["'\`]${BUILTIN}["'\`]\\s*\\)`,
    'g',
  );
  return filesUnder(outDir)
    .filter((path) => path.endsWith('.js'))
    .flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      // Vite replaces a built-in it meets with a stub that throws when used ("externalized for browser compatibility").
      const stubbed = text.includes('__vite-browser-external') ? [`Vite's stub of a Node built-in in ${file}`] : [];
      return [...[...text.matchAll(loads)].map((match) => `${match[0]} in ${file}`), ...stubbed];
    });
}

/** A warning or error about a Node built-in, as each bundler words it. */
const ABOUT_NODE =
  /\bnode:|Node(?:\.js)? (?:built-?in|core module)|externalized for browser|polyfill|resolve\.fallback|Can't resolve '(?:fs|path|os|net|tls|stream|crypto|zlib|util|dns|events|url|module)/i;

interface Built {
  /** The directory to serve, with `index.html`. */
  outDir: string;
  warnings: string[];
}

async function withEsbuild(project: string): Promise<Built> {
  const outDir = join(project, 'esbuild-out');
  const result = await esbuild({
    entryPoints: [join(project, 'main.js')],
    absWorkingDir: project,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    splitting: true,
    outdir: outDir,
    logLevel: 'silent',
  });
  writeFileSync(join(outDir, 'index.html'), HTML('./main.js'));
  return { outDir, warnings: result.warnings.map((warning) => warning.text) };
}

async function withVite(project: string): Promise<Built> {
  const outDir = join(project, 'vite-out');
  const warnings: string[] = [];
  const logger: ViteLogger = {
    info() {},
    warn: (message) => warnings.push(message),
    warnOnce: (message) => warnings.push(message),
    error: (message) => warnings.push(message),
    clearScreen() {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  await viteBuild({ root: project, configFile: false, customLogger: logger, build: { outDir } });
  return { outDir, warnings };
}

async function withWebpack(project: string): Promise<Built> {
  const outDir = join(project, 'webpack-out');
  const compiler = webpack({
    mode: 'production',
    target: 'web',
    entry: join(project, 'main.js'),
    output: { path: outDir },
  });
  const stats = await new Promise<webpack.Stats>((resolve, reject) =>
    compiler.run((error, result) => (error || !result ? reject(error) : resolve(result))),
  );
  await new Promise<void>((resolve) => compiler.close(() => resolve()));
  const { errors = [], warnings = [] } = stats.toJson({ all: false, errors: true, warnings: true });
  if (errors.length > 0) throw new Error(`webpack failed:\n${errors.map((error) => error.message).join('\n')}`);
  writeFileSync(join(outDir, 'index.html'), HTML('./main.js'));
  return { outDir, warnings: warnings.map((warning) => warning.message) };
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/**
 * Serves `dir` on loopback, and under `/proxy/` a CORS proxy (the cors-anywhere convention: the full feed URL appended)
 * that forwards to `feedEndpoint` alone; resolves with its origin and the feed URLs it forwarded.
 */
async function serve(
  dir: string,
  feedEndpoint: string,
): Promise<{ server: Server; origin: string; proxied: string[] }> {
  const proxied: string[] = [];
  const server = createServer(async (request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith('/proxy/')) {
      const target = url.slice('/proxy/'.length);
      if (!target.startsWith(`${feedEndpoint}/`)) return response.writeHead(403).end();
      proxied.push(target);
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'auth-key', 'accept']) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const answer = await fetch(target, {
        method: request.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const type = answer.headers.get('content-type');
      return response
        .writeHead(answer.status, type ? { 'content-type': type } : {})
        .end(Buffer.from(await answer.arrayBuffer()));
    }
    const path = new URL(url, 'http://x').pathname;
    const file = join(dir, path === '/' ? 'index.html' : decodeURIComponent(path));
    if (!file.startsWith(dir)) return response.writeHead(404).end();
    try {
      const body = readFileSync(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, proxied };
}

/** The page's `document`, as far as these tests read it (e2e's types have no DOM). */
type PageGlobal = { document: { body: { dataset: Record<string, string | undefined> } } };

describeWithChromium('a page importing ThreatClient, bundled with no configuration', () => {
  let project: string;
  let browser: Browser;
  let emulator: FeedEmulator;

  beforeAll(async () => {
    emulator = await startFeedEmulator();
    emulator.script(FLAGGED, 'malicious');
    project = makeProject(emulator.endpoints.feed_urls);
    browser = await chromium.launch(chromiumLaunchOptions());
  });

  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it.each([
    ['esbuild (platform browser)', withEsbuild],
    ['Vite (app build)', withVite],
    ['webpack 5 (target web)', withWebpack],
  ])('bundles with %s, with no Node built-in, and scans in Chromium', { timeout: 180_000 }, async (_name, bundle) => {
    const { outDir, warnings } = await bundle(project);
    expect(warnings.filter((warning) => ABOUT_NODE.test(warning))).toEqual([]);
    expect(nodeReferences(outDir)).toEqual([]);

    const { server, origin, proxied } = await serve(outDir, emulator.endpoints.feed_urls);
    const watched = await openWatchedPage(browser, [origin]);
    try {
      await watched.page.goto(`${origin}/`);
      // Run in the page (serialized): they can use no name of this module.
      await watched.page.waitForFunction(
        () => {
          const { dataset } = (globalThis as unknown as PageGlobal).document.body;
          return (dataset.flagged && dataset.listed) ?? dataset.error;
        },
        undefined,
        { timeout: 60_000 },
      );
      const outcome = await watched.page.evaluate(() => ({
        ...(globalThis as unknown as PageGlobal).document.body.dataset,
      }));
      expect(outcome).toEqual({ flagged: 'malicious', listed: 'malicious' });
      // The feed was asked through the proxy, for both indicators.
      expect(proxied.length).toBeGreaterThanOrEqual(2);
      expect(watched.problems()).toEqual(NO_PROBLEMS);
    } finally {
      await watched.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
