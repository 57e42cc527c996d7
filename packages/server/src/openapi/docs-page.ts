import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CspDirectives } from '@threatlib/core/http-server';

/** The style of the page's fallback (no JavaScript): the operations as a table. */
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto}td{padding:.3rem .6rem;border-bottom:1px solid #ddd}';

/**
 * The CSP of `/docs` and its files: scripts and style sheets from this server only (Swagger UI's bundle and the
 * page's own starter, no inline script), the fallback's one inline style sheet by its hash, images from this server or
 * `data:` URIs (Swagger UI's icons), requests to this server only (the document, "Try it out"); no frame, no form,
 * no other origin.
 */
export const DOCS_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The media type `/docs` is served as. */
export const DOCS_CONTENT_TYPE = 'text/html; charset=utf-8';

/** One file `/docs` loads, served as `/docs/<name>`. */
export interface DocsAsset {
  type: string;
  body: Buffer;
  etag: string;
}

/** Where the build puts Swagger UI's files (scripts/copy-docs-ui.mjs), and the page's own starter. */
const FILES: ReadonlyArray<{ name: string; url: URL; type: string }> = [
  {
    name: 'swagger-ui-bundle.js',
    url: new URL('../../dist/docs-ui/swagger-ui-bundle.js', import.meta.url),
    type: 'text/javascript; charset=utf-8',
  },
  {
    name: 'swagger-ui.css',
    url: new URL('../../dist/docs-ui/swagger-ui.css', import.meta.url),
    type: 'text/css; charset=utf-8',
  },
  {
    name: 'docs-init.js',
    url: new URL('../../assets/docs-init.js', import.meta.url),
    type: 'text/javascript; charset=utf-8',
  },
];

/**
 * The files of the rendered reference, read once; undefined when the build did not copy Swagger UI (a `tsc` without
 * `pnpm run build`): `/docs` then serves its table alone.
 */
export function docsAssets(): Map<string, DocsAsset> | undefined {
  const assets = new Map<string, DocsAsset>();
  for (const { name, url, type } of FILES) {
    let body: Buffer;
    try {
      body = readFileSync(url);
    } catch {
      return undefined;
    }
    assets.set(name, { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return assets;
}

/**
 * The `/docs` page: Swagger UI rendering the OpenAPI document at `documentUrl` (relative to the page, so the page
 * works behind a proxy that adds a path), with the operations as a table for a browser without JavaScript (or when
 * the renderer's files are missing).
 */
export function docsPage(document: Record<string, unknown>, options: { rendered: boolean }): string {
  const paths = document.paths as Record<string, Record<string, { summary?: string }>>;
  const rows = Object.entries(paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(
        ([method, op]) =>
          `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? '')}</td></tr>`,
      ),
    )
    .join('\n');
  const table = `<h1>threatlib API</h1><p>The machine-readable description is <a href="openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are RFC 9457 problem documents.</p>
<table>${rows}</table>`;
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>threatlib API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.rendered ? '<link rel="stylesheet" href="docs/swagger-ui.css">\n' : ''}<style>${STYLE}</style>
</head><body>`;
  if (!options.rendered) return `${head}\n${table}</body></html>`;
  return `${head}
<div id="swagger-ui" data-openapi="openapi.json"></div>
<div id="no-script">${table}</div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/docs-init.js"></script>
</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
