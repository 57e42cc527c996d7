// The dashboard at /app: its files with their media types, CSP and caching, and nothing else: a path that is not one
// of the built files (traversal, encoded dots, NUL, a long path) is a 4xx problem, never a 5xx or a file outside.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APIServer } from '../api-server.js';
import { rawExchange, requestFrom } from '../http/raw-http.test-suite.js';
import { serveForTest, testClient } from '../test-support/serve.js';

const PACKAGE_JSON = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');

describe('the dashboard at /app', () => {
  it('links the dashboard from / and redirects /app to /app/', async () => {
    const { call } = await serveForTest();
    const home = await call('/', { token: null });
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await home.text();
    expect(page).toContain('href="app/"');
    expect(page).toContain('href="docs"');
    // Another method on the page is 405 naming the ones it answers, as on every route.
    const trace = await call('/app/', { token: null, method: 'DELETE' });
    expect([trace.status, trace.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const redirect = await call('/app', { token: null, redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('app/');
  });

  it('serves the page, its hashed files for good and the rest revalidated, under a CSP without inline code', async () => {
    const { call } = await serveForTest();
    const index = await call('/app/', { token: null });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("worker-src 'self'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await index.text();
    // No inline script or style in the page: the CSP would refuse it.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    const script = /src="(assets\/app-[\w-]+\.js)"/.exec(html)?.[1];
    const sheet = /href="(assets\/app-[\w-]+\.css)"/.exec(html)?.[1];
    expect(script && sheet).toBeTruthy();
    const files: Array<[string, string, string]> = [
      [`${script}`, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
      [`${sheet}`, 'text/css; charset=utf-8', 'public, max-age=31536000, immutable'],
      ['sw.js', 'text/javascript; charset=utf-8', 'no-cache'],
      ['manifest.webmanifest', 'application/manifest+json', 'no-cache'],
      ['icons/icon-192.png', 'image/png', 'no-cache'],
      ['icons/icon-512.png', 'image/png', 'no-cache'],
      ['index.html', 'text/html; charset=utf-8', 'no-cache'],
    ];
    for (const [file, type, cache] of files) {
      const answer = await call(`/app/${file}`, { token: null });
      expect([file, answer.status, answer.headers.get('content-type'), answer.headers.get('cache-control')]).toEqual([
        file,
        200,
        type,
        cache,
      ]);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      const etag = answer.headers.get('etag') ?? '';
      const again = await call(`/app/${file}`, { token: null, headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
    const manifest = (await (await call('/app/manifest.webmanifest', { token: null })).json()) as {
      icons: Array<{ sizes: string }>;
    };
    expect(manifest.icons.map((icon) => icon.sizes)).toEqual(['192x192', '512x512']);
    const png = Buffer.from(await (await call('/app/icons/icon-512.png', { token: null })).arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(512);
  });

  it('answers every path that is not a built file with 4xx, never 5xx, never a file outside the assets', async () => {
    const { base } = await serveForTest();
    const port = Number(new URL(base).port);
    const paths = [
      '/app/../package.json',
      '/app/../../package.json',
      '/app/%2e%2e/package.json',
      '/app/%2e%2e%2f%2e%2e%2fpackage.json',
      '/app/..%2fpackage.json',
      '/app/..%5cpackage.json',
      '/app/%252e%252e%252fpackage.json',
      '/app/.%2e/.%2e/package.json',
      '/app//etc/passwd',
      '/app/%2fetc%2fpasswd',
      '/app/index.html%00',
      '/app/index.html%00.png',
      '/app/%00',
      '/app/assets/',
      '/app/assets',
      '/app/icons/../../package.json',
      '/app/%c0%ae%c0%ae/package.json',
      '/app/%zz',
      `/app/${'a'.repeat(5000)}`,
      `/app/${'../'.repeat(2000)}package.json`,
      '/app/;/../package.json',
      '/app/\\..\\package.json',
    ];
    for (const path of paths) {
      const answer = await requestFrom('127.0.0.1', `${base}${path}`);
      expect([path, answer.status >= 400 && answer.status < 500]).toEqual([path, true]);
      expect(answer.body).not.toContain('"name": "@threatlib/server"');
      expect(answer.body).not.toContain(PACKAGE_JSON.slice(0, 60));
    }
    // Bytes no HTTP client sends: a NUL and a raw backslash in the request line.
    for (const target of ['/app/index.html\0', '/app/..\\..\\package.json', '/app/\u00ff']) {
      const { response } = await rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, {
        untilResponse: true,
      });
      expect([target, (response?.status ?? 0) >= 400 && (response?.status ?? 0) < 500]).toEqual([target, true]);
    }
  });

  it('writes the pwa options in the page for its service worker, and refuses ones that are not options', async () => {
    const { call } = await serveForTest({
      dashboard: { pwa: { cacheStrategy: 'cache-first', offlineData: 50, syncOnReconnect: false } },
    });
    const page = await (await call('/app/', { token: null })).text();
    expect(page).toContain(
      '<meta name="threatlib-pwa" content="cacheStrategy=cache-first&amp;offlineData=50&amp;syncOnReconnect=false">',
    );
    const defaults = await serveForTest();
    expect(await (await defaults.call('/app/', { token: null })).text()).toContain(
      '<meta name="threatlib-pwa" content="">',
    );
    const off = await serveForTest({ dashboard: { pwa: { enabled: false } } });
    expect(await (await off.call('/app/', { token: null })).text()).toContain(
      '<meta name="threatlib-pwa" content="enabled=false">',
    );
    expect(
      () => new APIServer({ dashboard: { pwa: { cacheStrategy: 'stale-while-revalidate' as 'cache-first' } } }),
    ).toThrow(
      /dashboard\.pwa\.cacheStrategy: cacheStrategy is cache-first or network-first; got "stale-while-revalidate"/,
    );
    expect(() => new APIServer({ dashboard: { pwa: { offlineData: -1 } } })).toThrow(/dashboard\.pwa\.offlineData/);
    expect(() => new APIServer({ dashboard: { pwa: { sync: true } as never } })).toThrow(/dashboard\.pwa/);
  });

  it("carries the served client's config.pwa when dashboard.pwa is not given", async () => {
    const client = testClient({
      pwa: { enabled: true, cacheStrategy: 'cache-first', offlineData: true, syncOnReconnect: true },
    });
    expect(client.config.pwa).toEqual({
      enabled: true,
      cacheStrategy: 'cache-first',
      offlineData: true,
      syncOnReconnect: true,
    });
    const { call } = await serveForTest({}, client);
    // offlineData true and syncOnReconnect true are the worker's defaults: only cache-first needs saying.
    expect(await (await call('/app/', { token: null })).text()).toContain(
      '<meta name="threatlib-pwa" content="cacheStrategy=cache-first">',
    );
    const kept = testClient({ pwa: { offlineData: 50, syncOnReconnect: false } });
    const other = await serveForTest({}, kept);
    expect(await (await other.call('/app/', { token: null })).text()).toContain(
      '<meta name="threatlib-pwa" content="offlineData=50&amp;syncOnReconnect=false">',
    );
    const off = await serveForTest({}, testClient({ pwa: { enabled: false } }));
    expect(await (await off.call('/app/', { token: null })).text()).toContain(
      '<meta name="threatlib-pwa" content="enabled=false">',
    );
    // dashboard.pwa, when given, is the page's.
    const chosen = await serveForTest({ dashboard: { pwa: { offlineData: false } } }, client);
    expect(await (await chosen.call('/app/', { token: null })).text()).toContain(
      '<meta name="threatlib-pwa" content="offlineData=false">',
    );
  });

  it('serves no dashboard with dashboard: false (and / does not link it)', async () => {
    const { call } = await serveForTest({ dashboard: false });
    expect((await call('/app/', { token: null })).status).toBe(404);
    expect(await (await call('/', { token: null })).text()).not.toContain('app/');
  });
});
