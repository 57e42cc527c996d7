// The `test` options of a vitest browser project: its tests run in Debian's Chromium (chromium.ts), driven by
// Playwright, headless, with every request to another origin refused and failing the test (origin-guard.ts,
// browser-setup.ts). The log of a run prints `chromium --version` (chromium.ts's `setup`, the project's globalSetup).
//
// When Chromium is missing the project runs no browser: one placeholder test (chromium-missing.test.ts) is skipped
// with the reason and the install command, or fails when THREATLIB_E2E is set, as tests of a missing server do.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { playwright } from '@vitest/browser-playwright';
import type { BrowserContext } from 'playwright';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import type { BrowserCommand } from 'vitest/node';
import { CHROMIUM, chromiumLaunchOptions } from './chromium.js';
import { guardOrigins, type OriginGuard } from './origin-guard.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const guards = new WeakMap<BrowserContext, OriginGuard>();

/** Servers on loopback that the guard's own test asks a page to reach, by URL, with the requests they received. */
const otherOrigins = new Map<string, { server: Server; hits: number }>();

// The commands the page calls (browser-commands.d.ts types them for the page).

/** Installed by browser-setup.ts before a test file's own imports run; the origin allowed is the test server's. */
const guardPage: BrowserCommand<[]> = async ({ context, page }) => {
  if (!guards.has(context)) guards.set(context, await guardOrigins(context, [new URL(page.url()).origin]));
};

const takeRefusedRequests: BrowserCommand<[]> = ({ context }) => guards.get(context)?.take() ?? [];

const startOtherOrigin: BrowserCommand<[]> = async () => {
  const record = { server: createServer(), hits: 0 };
  record.server.on('request', (_request, response) => {
    record.hits += 1;
    // Readable from any page: unguarded, the page's fetch would succeed.
    response.writeHead(200, { 'access-control-allow-origin': '*' }).end('reached');
  });
  await new Promise<void>((resolve) => record.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(record.server.address() as AddressInfo).port}/`;
  // It answers from here: a request of the page to it fails only because the guard refused it.
  const answer = await (await fetch(url)).text();
  if (answer !== 'reached') throw new Error(`the other-origin server at ${url} answered ${answer}`);
  record.hits = 0;
  otherOrigins.set(url, record);
  return url;
};

const stopOtherOrigin: BrowserCommand<[url: string]> = async (_context, url) => {
  const record = otherOrigins.get(url);
  if (!record) throw new Error(`no other-origin server at ${url}`);
  otherOrigins.delete(url);
  await new Promise((resolve) => record.server.close(resolve));
  return record.hits;
};

/**
 * The `test` options of a browser project named `name` whose tests are `include` (globs relative to the project's
 * root, `root`, a folder of the repository).
 */
export function browserTestOptions(
  name: string,
  include: string[],
  root: string,
): TestProjectInlineConfiguration['test'] {
  if (!existsSync(CHROMIUM)) {
    return { name, include: [relative(root, here('./chromium-missing.test.ts'))], environment: 'node' };
  }
  return {
    name,
    include,
    globalSetup: [here('./chromium.ts')],
    setupFiles: [here('./browser-setup.ts')],
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({ launchOptions: chromiumLaunchOptions() }),
      instances: [{ browser: 'chromium' }],
      commands: { guardOrigins: guardPage, takeRefusedRequests, startOtherOrigin, stopOtherOrigin },
      // No screenshot of a failed test into the source tree: the assertion says what failed.
      screenshotFailures: false,
    },
  };
}
