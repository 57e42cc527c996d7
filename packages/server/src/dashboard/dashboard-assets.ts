import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ThreatConfig } from '@threatlib/core';

/** One file of the dashboard, read at start and served from memory. */
export interface DashboardAsset {
  type: string;
  body: Buffer;
  etag: string;
  /** Named by its content (`assets/app-<hash>.js`): cached for good. The others are revalidated on each load. */
  immutable: boolean;
}

/** The media type of each kind of file the dashboard's build writes; a file of another kind is not served. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};

/**
 * How the dashboard's service worker works (the documented `pwa` options): `enabled` (default true; false registers
 * no worker and removes one registered before), `cacheStrategy` for the page and the API's reads (`network-first`,
 * default, or `cache-first`), `offlineData` (keep recent verdicts: true for 500, a number, or false) and
 * `syncOnReconnect` (queue scans and alert actions made offline; default true). Core's own `pwa` option, so the two
 * cannot drift apart.
 */
export type DashboardPwaOptions = NonNullable<ThreatConfig['pwa']>;

/** Where the server's build copies the dashboard (scripts/copy-dashboard.mjs). */
const DEFAULT_DIR = fileURLToPath(new URL('../../dist/app/', import.meta.url));

/** Most files and bytes read: the build writes about ten files and 100 KiB; anything far larger is not ours. */
const MAX_FILES = 200;
const MAX_BYTES = 20 * 1024 * 1024;

/**
 * The dashboard's files by their path under `/app/` (`index.html`, `assets/app-3F2A.js`), read once from `dir`;
 * undefined when the dashboard was not built there (a `tsc` without `pnpm run build`). Requests are answered from
 * this map alone: a path that is not one of its keys is not found, so no request reaches the file system.
 */
export function dashboardAssets(
  dir: string = DEFAULT_DIR,
  pwa: DashboardPwaOptions = {},
): Map<string, DashboardAsset> | undefined {
  let names: string[];
  try {
    if (!statSync(join(dir, 'index.html')).isFile()) return undefined;
    names = listFiles(dir, dir);
  } catch {
    return undefined;
  }
  const assets = new Map<string, DashboardAsset>();
  let bytes = 0;
  for (const name of names.slice(0, MAX_FILES)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body =
      name === 'index.html' ? withPwaOptions(readFileSync(join(dir, name)), pwa) : readFileSync(join(dir, name));
    bytes += body.length;
    if (bytes > MAX_BYTES) break;
    assets.set(name, {
      type,
      body,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      immutable: name.startsWith('assets/'),
    });
  }
  return assets;
}

/**
 * The page with its `pwa` options in `<meta name="threatlib-pwa" content="...">` (a query string the page reads and
 * hands to its service worker's URL).
 */
function withPwaOptions(page: Buffer, pwa: DashboardPwaOptions): Buffer {
  const params = new URLSearchParams();
  if (pwa.enabled === false) params.set('enabled', 'false');
  // The defaults (network-first, 500 verdicts kept) are the worker's own: only what differs is written.
  if (pwa.cacheStrategy === 'cache-first') params.set('cacheStrategy', pwa.cacheStrategy);
  if (pwa.offlineData !== undefined && pwa.offlineData !== true) params.set('offlineData', String(pwa.offlineData));
  if (pwa.syncOnReconnect === false) params.set('syncOnReconnect', 'false');
  const content = params.toString().replaceAll('&', '&amp;');
  return Buffer.from(
    page
      .toString('utf8')
      .replace('<meta name="threatlib-pwa" content="">', `<meta name="threatlib-pwa" content="${content}">`),
  );
}

function listFiles(root: string, dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(root, path) : [relative(root, path).split(sep).join('/')];
  });
}
