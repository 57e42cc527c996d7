import { createHash } from 'node:crypto';
import type { CspDirectives } from '../http/security-headers.js';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto}td{padding:.3rem .6rem;border-bottom:1px solid #ddd}';

/**
 * The CSP of `/docs`: the page's one inline style sheet, allowed by its hash, and nothing else (no script, no
 * frame, no form, no other origin).
 */
export const DOCS_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'style-src': [`'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The media type `/docs` is served as. */
export const DOCS_CONTENT_TYPE = 'text/html; charset=utf-8';

/** A small HTML page listing the operations of an OpenAPI document, linking to the document itself. */
export function docsPage(document: Record<string, unknown>): string {
  const paths = document.paths as Record<string, Record<string, { summary?: string }>>;
  const rows = Object.entries(paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(
        ([method, op]) =>
          `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? '')}</td></tr>`,
      ),
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>threatlib API</title>
<style>${STYLE}</style>
</head><body><h1>threatlib API</h1><p>The machine-readable description is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are RFC 9457 problem documents.</p>
<table>${rows}</table></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
