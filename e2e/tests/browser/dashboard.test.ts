// The dashboard (`/app/`) in Chromium, driven from Node against a running APIServer whose client asks a loopback
// feed emulator: sign in, scan a batch (defanged too), open an explanation, see an alert and its deliveries, the
// feeds and the campaigns; then take the page offline (the context's offline mode), reload it and still see the app
// shell and the stored verdicts, scan while offline, come back online and see the queued scan reach the server exactly
// once (counted in the server's own access log). Every page passes axe-core with no serious or critical violation,
// and no page logs a console error, throws, fails a request or asks another origin. A screenshot of each page is
// written to test-results/dashboard/ (the server's README shows them).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Alert, parseConfig, ThreatClient, type ThreatConfig } from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import { createLogger } from '@threatlib/core/logging';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { APIServer, type APIServerOptions } from '@threatlib/server';
import axe from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumLaunchOptions } from '../../browser/chromium.js';
import { describeWithChromium } from '../../browser/describe-with-chromium.js';
import { openWatchedPage, type WatchedPage } from '../../browser/watched-page.js';

const RESULTS = fileURLToPath(new URL('../../../test-results/dashboard/', import.meta.url));
const TOKEN = `dashboard-e2e-token-${process.pid}-0123456789abcdef`;
const NO_PROBLEMS = { consoleErrors: [], pageErrors: [], failedRequests: [], otherOrigins: [] };
/** axe-core's own script, run in each page (as @axe-core/playwright does). */
const AXE_SOURCE = axe.source;
const EXAMPLE_LIST = fileURLToPath(
  new URL('../../../packages/core/examples/lists/example-blocklist.txt', import.meta.url),
);

/** On the shipped example blocklist. */
const LISTED = '45.148.10.240';
/** Malicious at every emulated feed (scripted below), asked defanged. */
const FLAGGED = ['198.51.100.23', '198.51.100.24', '198.51.100.25'];
/** Asked only while offline. */
const OFFLINE_ONLY = '203.0.113.77';

/** An integration that never takes an alert: its delivery shows `failed` and the error. */
class DownTicketing implements Integration {
  readonly retries = 0;
  async sendAlert(_alert: Alert): Promise<unknown> {
    throw new Error('ticketing is down for maintenance (503)');
  }
  async enrichIndicator() {
    return undefined;
  }
}
/** One that takes every alert. */
class Chat implements Integration {
  readonly retries = 0;
  async sendAlert(alert: Alert) {
    return { posted: alert.id };
  }
  async enrichIndicator() {
    return undefined;
  }
}

/** The `method path` of each request in an access log's lines (the server's `incoming request` lines), in order. */
function requestsIn(lines: readonly string[]): string[] {
  return lines
    .map((line) => JSON.parse(line) as { msg?: string; req?: { method?: string; url?: string } })
    .filter((line) => line.msg === 'incoming request')
    .map((line) => `${line.req?.method} ${line.req?.url}`);
}

/** A server on the example list alone (no feed), its access log in `lines`, with `options`. */
async function startPlainServer(options: APIServerOptions, lines: string[]): Promise<APIServer> {
  const logger = createLogger(parseConfig({ sources: ['feed_abuse'], logging: { level: 'info' } }).logging, {
    destination: { write: (line: string) => lines.push(line) },
  });
  const client = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'example', file: EXAMPLE_LIST, format: 'plain', verdict: 'malicious' }],
      security: { enforceHttps: false },
    } as ThreatConfig,
    { env: false, logger },
  );
  const server = new APIServer({
    port: 0,
    authentication: { type: 'bearer', tokens: [TOKEN] },
    logRequests: true,
    ...options,
  });
  server.mount('/api/v1', client);
  await server.start();
  return server;
}

/**
 * Resolves once the service worker controls `page` (it claims the page on activation). A function, not a text: the
 * page's CSP refuses the `eval` that waiting on a text would use.
 */
async function controlled(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      (globalThis as unknown as { navigator: { serviceWorker: { controller: unknown } } }).navigator.serviceWorker
        .controller !== null,
    undefined,
    { timeout: 20_000 },
  );
}

/** Opens the dashboard at `url` and signs in; resolves once the scan page is shown. */
async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/app/`);
  await page.getByLabel('API token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Scan', level: 1 }).waitFor();
}

describeWithChromium('the dashboard at /app in Chromium', () => {
  let emulator: FeedEmulator;
  let server: APIServer;
  let url: string;
  let browser: Browser;
  const lines: string[] = [];

  /** The server's access log: the paths of the requests received, in order. */
  const requests = () => requestsIn(lines);
  /** How many `method path` requests the server received. */
  const received = (method: string, path: string) => requests().filter((r) => r === `${method} ${path}`).length;
  const REDELIVER = /^POST \/api\/v1\/alerts\/[^/]+\/redeliver$/;

  beforeAll(async () => {
    emulator = await startFeedEmulator();
    for (const ip of FLAGGED) emulator.script(ip, 'malicious');
    const logger = createLogger(parseConfig({ sources: ['feed_abuse'], logging: { level: 'info' } }).logging, {
      destination: { write: (line: string) => lines.push(line) },
    });
    const client = new ThreatClient(
      {
        sources: ['feed_abuse', 'feed_otx'],
        strategy: 'aggressive',
        apiKeys: {
          feed_abuse: { key: 'abuse-e2e-key-0123456789', endpoint: emulator.endpoints.feed_abuse, timeout: 5000 },
          feed_otx: { key: 'otx-e2e-key-0123456789', endpoint: emulator.endpoints.feed_otx, timeout: 5000 },
        },
        lists: [{ name: 'example', file: EXAMPLE_LIST, format: 'plain', verdict: 'malicious' }],
        warninglists: { builtin: true },
        security: { enforceHttps: false },
        performance: { retryAttempts: 0, retryDelay: 2 },
        campaigns: { minIndicators: 2 },
      } as ThreatConfig,
      { env: false, logger },
    );
    client.registerIntegration('ticketing', DownTicketing);
    client.registerIntegration('chat', Chat);
    server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TOKEN] }, logRequests: true });
    server.mount('/api/v1', client);
    [url, browser] = await Promise.all([server.start(), chromium.launch(chromiumLaunchOptions())]);
    mkdirSync(RESULTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await emulator?.close();
  });

  /** axe-core's serious and critical violations on the page as it is, each as `rule: targets`. */
  async function seriousViolations(page: Page): Promise<string[]> {
    // Evaluated through the DevTools protocol: the page's CSP (no inline script) stays on for the page itself.
    await page.evaluate(AXE_SOURCE);
    // Page code as text: this file is compiled for Node.js, without the DOM's types.
    const violations = (await page.evaluate(
      'axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))',
    )) as Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  async function checkPage(watched: WatchedPage, name: string): Promise<void> {
    await watched.page.screenshot({ path: `${RESULTS}${name}.png`, fullPage: true });
    expect([name, await seriousViolations(watched.page)]).toEqual([name, []]);
  }

  it('the accessibility check sees serious violations (an unlabelled field, an image without text)', async () => {
    const watched = await openWatchedPage(browser, [url]);
    try {
      await watched.page.setContent(
        '<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1><input type="text"><img src="data:,"></main></body></html>',
      );
      expect((await seriousViolations(watched.page)).map((v) => v.split(':')[0]).sort()).toEqual([
        'image-alt',
        'label',
      ]);
    } finally {
      await watched.close();
    }
  });

  it('refuses a wrong token, saying so, and keeps nothing', async () => {
    const watched = await openWatchedPage(browser, [url]);
    const { page } = watched;
    try {
      await page.goto(`${url}/app/`);
      await page.getByLabel('API token').fill('not-the-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused this token');
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
      expect(page.url()).toBe(`${url}/app/`);
      // Chromium reports the refused request itself, and nothing else went wrong.
      expect(watched.problems()).toEqual({
        ...NO_PROBLEMS,
        consoleErrors: [
          `Failed to load resource: the server responded with a status of 401 (Unauthorized) (${url}/api/v1/feeds/status:0)`,
        ],
      });
    } finally {
      await watched.close();
    }
  }, 60_000);

  it('signs in, scans, explains, shows alerts, feeds and campaigns; offline it keeps verdicts and sends a queued scan once', async () => {
    const watched = await openWatchedPage(browser, [url]);
    const { page, context } = watched;
    try {
      // Sign in: the page, then the form.
      const response = await page.goto(`${url}/app/`);
      expect(response?.status()).toBe(200);
      await page.getByLabel('API token').waitFor();
      await checkPage(watched, 'sign-in');
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Scan', level: 1 }).waitFor();
      expect(page.url()).not.toContain(TOKEN);
      // The service worker controls the page (it claims it on activation).
      await controlled(page);

      // Scan a batch, defanged forms included.
      const batch = [LISTED, ...FLAGGED.map((ip) => ip.replace(/\.(\d+)$/, '[.]$1')), '8.8.8.8'];
      await page.getByLabel(/^Indicators/).fill(batch.join('\n'));
      await page.getByRole('button', { name: 'Scan', exact: true }).click();
      const verdicts = page.getByTestId('verdicts');
      await expect.poll(() => verdicts.locator('tbody tr').count(), { timeout: 20_000 }).toBe(batch.length);
      const listedRow = verdicts.locator('tbody tr', { hasText: LISTED });
      expect(await listedRow.textContent()).toContain('malicious');
      expect(await verdicts.locator('tbody tr', { hasText: FLAGGED[0] }).textContent()).toContain('malicious');
      expect(received('POST', '/api/v1/threats/batch')).toBe(1);
      await checkPage(watched, 'scan');

      // The explanation of a row: each source, the lists, the STIX pattern.
      // By keyboard: the row's button takes Enter, and the explanation's heading takes the focus.
      await listedRow.getByRole('button').focus();
      await page.keyboard.press('Enter');
      const explanation = page.getByTestId('explanation');
      await explanation.waitFor();
      await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('explanation-title');
      await expect.poll(() => page.getByTestId('stix-pattern').textContent()).toBe(`[ipv4-addr:value = '${LISTED}']`);
      await expect.poll(() => explanation.getByTestId('contributions').textContent()).toContain('list:example');
      await expect.poll(() => explanation.textContent()).toMatch(/yes: /);
      await checkPage(watched, 'explanation');
      // The explanation is the scan's own (`explain: true`): the feeds are not asked again, no alert raised again.
      expect(received('POST', '/api/v1/correlate')).toBe(0);

      // Alerts: the scan's threats raised alerts, delivered to one integration and failed at the other.
      await page.getByRole('link', { name: 'Alerts' }).focus();
      await page.keyboard.press('Enter');
      const alerts = page.getByTestId('alerts');
      await expect.poll(() => alerts.textContent(), { timeout: 20_000 }).toContain(LISTED);
      await alerts.locator('tbody tr', { hasText: LISTED }).first().getByRole('button').click();
      const deliveries = page.getByTestId('deliveries');
      await expect
        .poll(
          async () => {
            await page.getByRole('button', { name: 'Refresh' }).click();
            return (await deliveries.textContent()) ?? '';
          },
          { timeout: 20_000 },
        )
        .toMatch(/ticketing\s*failed.*ticketing is down for maintenance/s);
      expect(await deliveries.textContent()).toMatch(/chat\s*delivered/);
      // One alert for the indicator at the server, although its delivery failed and its explanation was opened.
      const alertList = await fetch(`${url}/api/v1/alerts`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const items = ((await alertList.json()) as { items: Alert[] }).items;
      expect(items.filter((a) => a.indicators.some((i) => i.value === LISTED))).toHaveLength(1);
      await checkPage(watched, 'alerts');
      // Redeliver: the failed integration is tried again (a second attempt), the delivered one is left alone.
      await page.getByRole('button', { name: 'Redeliver' }).click();
      await expect.poll(() => page.getByTestId('alert-detail').textContent()).toContain('Redelivery started');
      const row = (name: string) => deliveries.locator('tbody tr', { hasText: name });
      await expect
        .poll(
          async () => {
            await page.getByRole('button', { name: 'Refresh' }).click();
            return (await row('ticketing').locator('td').nth(1).textContent()) ?? '';
          },
          { timeout: 20_000 },
        )
        .toBe('2');
      expect(await row('chat').locator('td').nth(1).textContent()).toBe('1');

      // Feeds and campaigns.
      await page.getByRole('link', { name: 'Feeds' }).click();
      await expect.poll(() => page.getByTestId('feeds').textContent(), { timeout: 20_000 }).toContain('feed_abuse');
      expect(await page.getByTestId('integrations').textContent()).toMatch(/ticketing\s*healthy.*chat\s*healthy/s);
      await checkPage(watched, 'feeds');
      await page.getByRole('link', { name: 'Campaigns' }).click();
      await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
      // The three flagged indicators share the emulated feeds' pulses, tags and families: campaigns formed.
      await expect.poll(() => page.getByTestId('campaigns').textContent()).toContain(FLAGGED[2]);
      await checkPage(watched, 'campaigns');

      // Offline: a reload serves the app shell and the stored verdicts, and asks the server nothing.
      await page.getByRole('link', { name: 'Scan' }).click();
      const before = lines.length;
      await context.setOffline(true);
      await page.reload();
      await page.getByRole('heading', { name: 'Scan', level: 1 }).waitFor();
      const stored = page.getByTestId('stored-verdicts');
      await expect.poll(() => stored.textContent(), { timeout: 10_000 }).toContain(LISTED);
      expect(await page.getByTestId('network').textContent()).toContain('Offline');

      // A scan made offline: queued, with the stored verdict shown meanwhile.
      await page.getByLabel(/^Indicators/).fill(`${OFFLINE_ONLY}\n${LISTED}`);
      await page.getByRole('button', { name: 'Scan', exact: true }).click();
      await expect.poll(() => page.getByTestId('scan-message').textContent()).toContain('queued');
      expect(await page.getByTestId('verdicts').locator('tbody tr', { hasText: LISTED }).textContent()).toMatch(
        /malicious.*stored/s,
      );
      await checkPage(watched, 'offline');
      // Chromium has Background Sync: the queue registered its sync, which fires when the browser is online again.
      expect(
        await page.evaluate('navigator.serviceWorker.ready.then((r) => ("sync" in r ? r.sync.getTags() : []))'),
      ).toContain('workbox-background-sync:threatlib-offline-actions');

      // An alert action made offline: the alert comes from the cached API answers, the redelivery is queued after
      // the scan.
      await page.getByRole('link', { name: 'Alerts' }).click();
      await expect.poll(() => page.getByTestId('alerts').textContent(), { timeout: 10_000 }).toContain(LISTED);
      await page.getByTestId('alerts').locator('tbody tr', { hasText: LISTED }).first().getByRole('button').click();
      await page.getByRole('button', { name: 'Redeliver' }).click();
      await expect.poll(() => page.getByTestId('alert-detail').textContent()).toContain('redelivery queued');
      await page.getByRole('link', { name: 'Scan' }).click();
      expect(lines.slice(before).filter((line) => line.includes('incoming request'))).toEqual([]);
      expect(received('POST', '/api/v1/threats/batch')).toBe(1);
      // Since the network went: nothing (the online redelivery above is before `before`).
      const since = () => requestsIn(lines.slice(before));
      expect(since().filter((r) => REDELIVER.test(r))).toEqual([]);

      // Online again: the queued scan and the redelivery are sent once each, in the order they were made, and the
      // scan's verdict replaces the waiting row.
      await context.setOffline(false);
      await expect.poll(() => received('POST', '/api/v1/threats/batch'), { timeout: 20_000 }).toBe(2);
      await expect.poll(() => since().filter((r) => REDELIVER.test(r)).length, { timeout: 20_000 }).toBe(1);
      const sent = since().filter((r) => r === 'POST /api/v1/threats/batch' || REDELIVER.test(r));
      expect(sent.map((r) => (REDELIVER.test(r) ? 'redeliver' : 'scan'))).toEqual(['scan', 'redeliver']);
      await expect
        .poll(() => page.getByTestId('scan-message').textContent(), { timeout: 10_000 })
        .toContain('was sent');
      expect(await page.getByTestId('verdicts').locator('tbody tr', { hasText: OFFLINE_ONLY }).textContent()).toContain(
        'live',
      );
      // A reload (a replay on start) and another `online` send nothing more: the queue is empty.
      await page.reload();
      await page.getByRole('heading', { name: 'Scan', level: 1 }).waitFor();
      await page.evaluate("window.dispatchEvent(new Event('online'))");
      await page.waitForTimeout(1000);
      expect(received('POST', '/api/v1/threats/batch')).toBe(2);
      expect(since().filter((r) => REDELIVER.test(r))).toHaveLength(1);
      expect(emulator.count('feed_abuse', OFFLINE_ONLY)).toBe(1);

      expect(watched.problems()).toEqual(NO_PROBLEMS);
      expect(lines.join('')).not.toContain(TOKEN);
    } finally {
      await watched.close();
    }
  }, 180_000);

  it("follows the server's pwa options: cache-first API reads, no offline queue without syncOnReconnect, no worker when disabled", async () => {
    const log: string[] = [];
    const other = await startPlainServer(
      // protectProbes: the feeds page reads /health with the API's token.
      { dashboard: { pwa: { cacheStrategy: 'cache-first', syncOnReconnect: false } }, protectProbes: true },
      log,
    );
    const otherUrl = other.address ?? '';
    const watched = await openWatchedPage(browser, [otherUrl]);
    const { page, context } = watched;
    const count = (request: string) => requestsIn(log).filter((r) => r === request).length;
    try {
      await signIn(page, otherUrl);
      await controlled(page);
      expect(await page.evaluate('navigator.serviceWorker.controller.scriptURL')).toBe(
        `${otherUrl}/app/sw.js?cacheStrategy=cache-first&syncOnReconnect=false`,
      );
      // cache-first: the feeds' status is asked once, then answered from the worker's cache.
      await page.getByRole('link', { name: 'Feeds' }).click();
      await page.getByText('No integration is configured.').waitFor();
      const asked = count('GET /api/v1/feeds/status');
      await page.getByRole('link', { name: 'Scan' }).click();
      await page.getByRole('link', { name: 'Feeds' }).click();
      await page.getByText('No integration is configured.').waitFor();
      expect(count('GET /api/v1/feeds/status')).toBe(asked);
      // The sign-in check is never answered from the cache: a wrong token is refused by the server.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API token').fill('not-the-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused this token');
      expect(count('GET /api/v1/feeds/status')).toBe(asked + 1);
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      // No queue: a scan made offline says it was not sent, and nothing is sent when the network is back.
      await page.getByRole('link', { name: 'Scan' }).click();
      await context.setOffline(true);
      await page.getByLabel(/^Indicators/).fill(LISTED);
      await page.getByRole('button', { name: 'Scan', exact: true }).click();
      await expect.poll(() => page.getByTestId('scan-message').textContent()).toContain('cannot be reached');
      await context.setOffline(false);
      await page.evaluate("window.dispatchEvent(new Event('online'))");
      await page.waitForTimeout(1000);
      expect(count('POST /api/v1/threats/batch')).toBe(0);
      // The problems: the refused token and the scan that could not leave the browser.
      expect(watched.problems()).toEqual({
        ...NO_PROBLEMS,
        consoleErrors: [
          expect.stringContaining('status of 401 (Unauthorized)'),
          expect.stringMatching(/^Failed to load resource: net::ERR_FAILED \(.*\/api\/v1\/threats\/batch:0\)$/),
        ],
        failedRequests: [expect.stringContaining('/api/v1/threats/batch')],
      });
    } finally {
      await watched.close();
      await other.stop();
    }

    const off = await startPlainServer({ dashboard: { pwa: { enabled: false } } }, []);
    const offUrl = off.address ?? '';
    const plain = await openWatchedPage(browser, [offUrl]);
    try {
      await signIn(plain.page, offUrl);
      await plain.page.waitForTimeout(1000);
      expect(await plain.page.evaluate('navigator.serviceWorker.getRegistrations().then((r) => r.length)')).toBe(0);
      expect(plain.problems()).toEqual(NO_PROBLEMS);
    } finally {
      await plain.close();
      await off.stop();
    }
  }, 120_000);
});
