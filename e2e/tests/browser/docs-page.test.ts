// The REST server's API reference (`threatlib serve`, then /docs) in Chromium, driven from Node: it renders every
// operation from the server's own OpenAPI document, with no console error, no script error, no failed request and no
// request to another origin. A screenshot of it is written to test-results/docs-page.png.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumLaunchOptions } from '../../browser/chromium.js';
import { describeWithChromium } from '../../browser/describe-with-chromium.js';
import { type ServerProcess, startServerProcess } from '../../browser/server-process.js';
import { openWatchedPage } from '../../browser/watched-page.js';

const BIN = fileURLToPath(new URL('../../../packages/server/bin/threatlib.js', import.meta.url));
const RESULTS = fileURLToPath(new URL('../../../test-results/', import.meta.url));
const TOKEN = `docs-page-token-${process.pid}-0123456789abcdef`;
const NO_PROBLEMS = { consoleErrors: [], pageErrors: [], failedRequests: [], otherOrigins: [] };

describeWithChromium('the API reference at /docs in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServerProcess({
        script: BIN,
        args: ['serve', '--port', '0'],
        env: { THREATLIB_API_TOKEN: TOKEN },
        ready: /^threatlib API listening on (http:\/\/\S+)/m,
      }),
      chromium.launch(chromiumLaunchOptions()),
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('renders every documented operation, with nothing failing and nothing fetched elsewhere', async () => {
    const watched = await openWatchedPage(browser, [server.url]);
    try {
      const { page } = watched;
      const response = await page.goto(`${server.url}/docs`);
      expect(response?.status()).toBe(200);
      const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const operations = Object.values(document.paths).flatMap((item) =>
        Object.keys(item).filter((key) => ['get', 'put', 'post', 'delete', 'patch'].includes(key)),
      ).length;
      // Swagger UI replaced the page's fallback table with one block per operation.
      await expect.poll(() => page.locator('.opblock').count(), { timeout: 20_000 }).toBe(operations);
      await expect.poll(() => page.locator('#no-script').count()).toBe(0);
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: `${RESULTS}docs-page.png`, fullPage: true });
      expect(watched.problems()).toEqual(NO_PROBLEMS);
      expect(server.output()).not.toContain(TOKEN);
    } finally {
      await watched.close();
    }
  }, 60_000);

  it('sees what a page does wrong: a console error, a thrown error, a failed request, a request elsewhere', async () => {
    // The page's own CSP would stop the request elsewhere inside the page (a console error); bypassed here, the
    // request reaches the browser's network layer, where the guard refuses it.
    const watched = await openWatchedPage(browser, [server.url], { bypassCSP: true });
    try {
      const { page } = watched;
      await page.goto(`${server.url}/docs`);
      expect(watched.problems()).toEqual(NO_PROBLEMS);
      // A connection that breaks, as a server that crashes mid-request would leave it.
      await watched.context.route(`${server.url}/docs/reset`, (route) => route.abort('connectionreset'));
      const thrown = page.waitForEvent('pageerror');
      await page.evaluate(async (origin) => {
        console.error('a console error');
        setTimeout(() => {
          throw new Error('a thrown error');
        });
        await fetch(`${origin}/docs/reset`).catch(() => undefined);
        await fetch('http://192.0.2.1/elsewhere').catch(() => undefined);
      }, server.url);
      await thrown;
      const problems = watched.problems();
      expect(problems.consoleErrors).toContainEqual(expect.stringContaining('a console error'));
      expect(problems.pageErrors).toContainEqual(expect.stringContaining('a thrown error'));
      expect(problems.failedRequests).toEqual([`GET ${server.url}/docs/reset: net::ERR_CONNECTION_RESET`]);
      expect(problems.otherOrigins).toEqual(['http://192.0.2.1/elsewhere']);
    } finally {
      await watched.close();
    }
  }, 60_000);
});
