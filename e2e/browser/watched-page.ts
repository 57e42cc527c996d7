// A Chromium page under watch, for tests that drive pages from Node: what the page's console reported as an error,
// the exceptions its scripts threw, the requests that failed, and the requests to other origins, refused before they
// left the browser (origin-guard.ts). A page test ends by expecting all four empty.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright';
import { guardOrigins } from './origin-guard.js';

/** What went wrong in a watched page, each as a line a person can read. */
interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  failedRequests: string[];
  otherOrigins: string[];
}

/** A page in a context of its own, with what went wrong in it so far. */
export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  problems(): PageProblems;
  close(): Promise<void>;
}

/**
 * Opens a page in a new context of `browser` (with `options`) whose requests may go only to `origins`
 * (`http://127.0.0.1:8080`).
 */
export async function openWatchedPage(
  browser: Browser,
  origins: readonly string[],
  options: BrowserContextOptions = {},
): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  const guard = await guardOrigins(context, origins);
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const failedRequests: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const { url, lineNumber } = message.location();
    consoleErrors.push(`${message.text()}${url ? ` (${url}:${lineNumber})` : ''}`);
  });
  page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
  page.on('requestfailed', (request) => {
    // A refused request to another origin is reported once, as such.
    if (guard.refused.includes(request.url())) return;
    failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'}`);
  });
  return {
    page,
    context,
    problems: () => ({
      consoleErrors: [...consoleErrors],
      pageErrors: [...pageErrors],
      failedRequests: [...failedRequests],
      otherOrigins: [...guard.refused],
    }),
    close: () => context.close(),
  };
}
