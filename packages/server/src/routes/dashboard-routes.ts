import { type CspDirectives, securityHeaders } from '@threatlib/core/http-server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardAsset } from '../dashboard/dashboard-assets.js';

/**
 * The CSP of `/app` and its files: scripts, style sheets, the web manifest, the service worker and requests from this
 * server only (no inline script or style anywhere: the page has none); images from this server or `data:`; no
 * frame, no form submission (the sign-in form is read by the page's script, never sent as a navigation that would
 * put the token in a URL), no `<base>`.
 */
const DASHBOARD_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'manifest-src': ["'self'"],
  'worker-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * `GET /` (a page linking the dashboard and the API reference), `GET /app` (to `/app/`), `GET /app/` (the
 * dashboard) and `GET /app/<file>`. Files are answered from memory by exact path: anything else (`..`, encoded dots,
 * NUL, a path that is too long) is not one of them and gets the server's 404.
 */
export function registerDashboardRoutes(app: FastifyInstance, assets: Map<string, DashboardAsset> | undefined): void {
  const csp = securityHeaders(DASHBOARD_CSP)['content-security-policy'] as string;
  app.get('/', { config: { rateLimit: false } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .send(landingPage(assets !== undefined)),
  );
  if (!assets) return;
  // Relative, so it works behind a proxy that adds a path.
  app.get('/app', { config: { rateLimit: false } }, async (_request, reply) => reply.redirect('app/', 301));
  const serve = async (path: string, request: FastifyRequest, reply: FastifyReply) => {
    const asset = assets.get(path);
    if (!asset) return reply.callNotFound();
    reply.header('content-security-policy', csp).header('etag', asset.etag);
    // Hashed names change with their content; the page, the worker and the manifest are revalidated on each load.
    reply.header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  };
  // The page has a route of its own, so that another method on it is answered 405 with `Allow`, as on any route.
  app.get('/app/', (request, reply) => serve('index.html', request, reply));
  app.get('/app/*', (request, reply) =>
    serve((request.params as { '*'?: string })['*'] || 'index.html', request, reply),
  );
}

/** The page at `/`: where the dashboard, the API reference and the OpenAPI document are. */
function landingPage(dashboard: boolean): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>threatlib</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>
<h1>threatlib</h1><ul>
${dashboard ? '<li><a href="app/">The dashboard</a>: scan indicators, alerts, feeds, campaigns</li>\n' : ''}<li><a href="docs">The API reference</a> (<a href="openapi.json">OpenAPI document</a>)</li>
<li><a href="health">Health</a></li>
</ul></main></body></html>`;
}
