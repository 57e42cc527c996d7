// The API reference: the OpenAPI document under the mount prefix as at the root, and /docs rendered from it by
// Swagger UI, whose files the server serves itself (no CDN) under a CSP that runs no inline script.
import { describe, expect, it } from 'vitest';
import { json, serveForTest } from '../test-support/serve.js';

describe('the OpenAPI document', () => {
  it('is served under the mount prefix too, without credentials, the same as /openapi.json', async () => {
    const { base } = await serveForTest();
    const root = await fetch(`${base}/openapi.json`);
    const mounted = await fetch(`${base}/api/v1/openapi.json`);
    expect(mounted.status).toBe(200);
    expect(mounted.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await mounted.json()).toEqual(await root.json());
  });

  it('documents its own addresses and the docs page as open operations', async () => {
    const { base } = await serveForTest();
    const document = await json(fetch(`${base}/openapi.json`));
    for (const path of ['/openapi.json', '/api/v1/openapi.json', '/docs']) {
      expect(document.paths[path]?.get, path).toMatchObject({ security: [], responses: { '200': expect.any(Object) } });
    }
  });
});

describe('GET /docs', () => {
  it('renders the document with Swagger UI, served from this server with the page CSP, revalidated by ETag', async () => {
    const { base } = await serveForTest();
    const page = await fetch(`${base}/docs`);
    const html = await page.text();
    expect(html).toContain('<div id="swagger-ui" data-openapi="openapi.json"></div>');
    // The operations stay readable without JavaScript.
    expect(html).toContain('<code>/api/v1/threats/scan</code>');
    const csp = page.headers.get('content-security-policy');
    for (const [file, type, marker] of [
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8', 'SwaggerUIBundle'],
      ['swagger-ui.css', 'text/css; charset=utf-8', '.swagger-ui'],
      ['docs-init.js', 'text/javascript; charset=utf-8', 'validatorUrl: null'],
    ] as const) {
      const asset = await fetch(`${base}/docs/${file}`);
      expect(asset.status, file).toBe(200);
      expect(asset.headers.get('content-type')).toBe(type);
      expect(asset.headers.get('content-security-policy')).toBe(csp);
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await asset.text()).toContain(marker);
      const etag = asset.headers.get('etag') as string;
      expect(etag).toMatch(/^"[\w-]{27}"$/);
      const again = await fetch(`${base}/docs/${file}`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
    // Nothing of the page or its starter names another origin (the renderer's bundle mentions URLs in its code).
    expect(html).not.toMatch(/https?:\/\//);
    expect(await (await fetch(`${base}/docs/docs-init.js`)).text()).not.toMatch(/https?:\/\//);
  });
});
