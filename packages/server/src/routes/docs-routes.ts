import { securityHeaders } from '@threatlib/core/http-server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DOCS_CONTENT_TYPE, DOCS_CSP, docsAssets, docsPage } from '../openapi/docs-page.js';

/** What the documentation routes need of the server. */
export interface DocsRoutesDeps {
  /** The API's OpenAPI document. */
  document: Record<string, unknown>;
  /** The mount prefixes, each of which serves the document too. */
  prefixes: readonly string[];
}

/** `GET /openapi.json` (at the root and under each mount prefix), `GET /docs` and the reference's own files. */
export function registerDocsRoutes(app: FastifyInstance, { document, prefixes }: DocsRoutesDeps): void {
  // The document is open (it describes the API and holds no data), at the root and under each mount prefix.
  const documentText = JSON.stringify(document);
  const sendDocument = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('application/json; charset=utf-8').send(documentText);
  app.get('/openapi.json', { config: { rateLimit: false } }, sendDocument);
  for (const prefix of prefixes) {
    if (prefix !== '') app.get(`${prefix}/openapi.json`, { config: { rateLimit: false } }, sendDocument);
  }
  // The reference rendered from it by Swagger UI, whose files this server serves itself under its own CSP.
  const docsCsp = securityHeaders(DOCS_CSP)['content-security-policy'] as string;
  const assets = docsAssets();
  if (!assets)
    app.log.warn('the API reference renderer is missing (build @threatlib/server): /docs lists operations only');
  const page = docsPage(document, { rendered: assets !== undefined });
  app.get('/docs', { config: { rateLimit: false } }, async (_request, reply) =>
    reply.type(DOCS_CONTENT_TYPE).header('content-security-policy', docsCsp).send(page),
  );
  // Rate-limited like the API (a page load is four requests): the bundle is 1.7 MB.
  for (const [name, asset] of assets ?? []) {
    app.get(`/docs/${name}`, async (request, reply) => {
      reply.header('content-security-policy', docsCsp).header('etag', asset.etag);
      // Revalidated on each load (a new version of the package serves new files at the same address).
      reply.header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    });
  }
}
