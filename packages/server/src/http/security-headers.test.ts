import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LISTED, post, serveForTest } from '../test-support/serve.js';

function expectHardened(response: Response, what: string) {
  const h = (name: string) => response.headers.get(name);
  expect(h('x-content-type-options'), what).toBe('nosniff');
  expect(h('x-frame-options'), what).toBe('DENY');
  expect(h('cache-control'), what).toBe('no-store');
  expect(h('content-security-policy'), what).toMatch(/default-src 'none'/);
  expect(h('content-security-policy'), what).toMatch(/frame-ancestors 'none'/);
  expect(h('referrer-policy'), what).toBe('no-referrer');
  expect(h('cross-origin-resource-policy'), what).toBe('same-origin');
}

describe('every answer carries the hardening headers', () => {
  it('routes that succeed, and HEAD', async () => {
    const { call, base } = await serveForTest();
    const answers: Array<[string, Response]> = [
      ['GET /health', await fetch(`${base}/health`)],
      ['GET /metrics', await fetch(`${base}/metrics`)],
      ['GET /openapi.json', await fetch(`${base}/openapi.json`)],
      ['POST scan', await call('/api/v1/threats/scan', post({ indicator: LISTED }))],
      ['POST batch', await call('/api/v1/threats/batch', post({ indicators: [LISTED] }))],
      ['POST correlate', await call('/api/v1/correlate', post({ indicator: LISTED }))],
      ['GET feeds/status', await call('/api/v1/feeds/status')],
      ['POST alerts', await call('/api/v1/alerts', post({ title: 't', severity: 'high' }))],
      ['GET alerts', await call('/api/v1/alerts')],
      ['HEAD alerts', await call('/api/v1/alerts', { method: 'HEAD' })],
      ['HEAD feeds/status', await call('/api/v1/feeds/status', { method: 'HEAD' })],
    ];
    for (const [what, response] of answers) {
      expect(response.status, what).toBeLessThan(300);
      expectHardened(response, what);
    }
  });

  it('errors: 400, 401, 404, 405, 413, 415 and 429', async () => {
    const { call } = await serveForTest({ rateLimit: { max: 8, windowMs: 60_000 } });
    const answers: Array<[number, Response]> = [
      [400, await call('/api/v1/threats/scan', post('{"indicator":'))],
      [401, await call('/api/v1/feeds/status', { token: 'wrong' })],
      [404, await call('/api/v1/nothing')],
      [405, await call('/api/v1/threats/scan', { method: 'DELETE' })],
      [413, await call('/api/v1/threats/scan', post({ indicator: 'a'.repeat(2_000_000) }))],
      [
        415,
        await call('/api/v1/threats/scan', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }),
      ],
    ];
    let limited: Response | undefined;
    for (let i = 0; i < 20 && !limited; i++) {
      const response = await call('/api/v1/feeds/status');
      if (response.status === 429) limited = response;
    }
    expect(limited, 'the rate limit answered 429').toBeDefined();
    answers.push([429, limited as Response]);
    for (const [status, response] of answers) {
      expect(response.status).toBe(status);
      expectHardened(response, String(status));
    }
  });

  it('/docs is HTML in UTF-8 whose CSP runs only scripts and style sheets of this server, no inline script', async () => {
    const { base } = await serveForTest();
    const docs = await fetch(`${base}/docs`);
    expect(docs.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docs.headers.get('cache-control')).toBe('no-store');
    const html = await docs.text();
    const style = /<style>([^<]*)<\/style>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    const csp = docs.headers.get('content-security-policy') ?? '';
    expect(csp.split(';').sort()).toEqual(
      [
        "base-uri 'none'",
        "connect-src 'self'",
        "default-src 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
        "img-src 'self' data:",
        "script-src 'self'",
        `style-src 'self' 'sha256-${hash}'`,
      ].sort(),
    );
    // Every script is a file of this server: none is inline, and no element carries a style attribute.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.map(([, attributes, body]) => [attributes?.trim(), body])).toEqual([
      ['src="docs/swagger-ui-bundle.js"', ''],
      ['src="docs/docs-init.js"', ''],
    ]);
    expect(html).not.toMatch(/style="|\son[a-z]+=/);
  });
});
