// Builds the dashboard into dist/ (static files @threatlib/server serves at /app):
//   index.html                  the page (not hashed: revalidated on each load)
//   assets/app-<hash>.js|.css   the application and its style sheet (hashed: cached for good)
//   sw.js                       the service worker, with the list of files to precache written where
//                               `self.__WB_MANIFEST` stands (Workbox's injectManifest convention)
//   manifest.webmanifest, icons/icon-192.png, icons/icon-512.png   what makes it installable
// Everything is bundled here with esbuild: the page fetches nothing from another origin, and nothing at run time
// but its own files and the API.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'icons'), { recursive: true });

const common = {
  bundle: true,
  minify: true,
  legalComments: 'none',
  target: ['chrome111', 'firefox111', 'safari16.4'],
  // Workbox logs at length unless it is told it runs in production.
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
  absWorkingDir: root,
};

// The page and its style sheet, named by their content.
const page = await build({
  ...common,
  entryPoints: [
    { in: join(src, 'main.tsx'), out: 'app' },
    { in: join(src, 'app.css'), out: 'app' },
  ],
  outdir: join(dist, 'assets'),
  entryNames: '[name]-[hash]',
  format: 'esm',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
});
const outputs = Object.keys(page.metafile.outputs).map((file) => relative(dist, join(root, file)));
const js = outputs.find((file) => file.endsWith('.js'));
const css = outputs.find((file) => file.endsWith('.css'));
if (!js || !css) throw new Error(`the page build wrote ${outputs.join(', ')}`);
writeFileSync(
  join(dist, 'index.html'),
  readFileSync(join(src, 'index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css),
);

writeFileSync(
  join(dist, 'manifest.webmanifest'),
  `${JSON.stringify(
    {
      name: 'threatlib dashboard',
      short_name: 'threatlib',
      description: 'Scan indicators, see why, follow alerts, feeds and campaigns.',
      start_url: './',
      scope: './',
      display: 'standalone',
      background_color: '#ffffff',
      theme_color: '#111827',
      icons: [
        { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
      ],
    },
    null,
    2,
  )}\n`,
);
for (const size of [192, 512]) writeFileSync(join(dist, 'icons', `icon-${size}.png`), icon(size));

// The service worker, with the precache list of every file above.
const precache = listFiles(dist).map((file) => ({
  url: file,
  // Hashed names change with their content; the others are revised by theirs.
  revision: file.startsWith('assets/')
    ? null
    : createHash('sha256')
        .update(readFileSync(join(dist, file)))
        .digest('hex')
        .slice(0, 16),
}));
const worker = await build({ ...common, entryPoints: [join(src, 'sw.ts')], format: 'iife', write: false });
const workerText = worker.outputFiles[0].text;
if (!workerText.includes('self.__WB_MANIFEST')) throw new Error('sw.ts no longer reads self.__WB_MANIFEST');
writeFileSync(join(dist, 'sw.js'), workerText.replace('self.__WB_MANIFEST', JSON.stringify(precache)));

/** The files under `dir`, as paths relative to dist with `/`. */
function listFiles(dir) {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? listFiles(path) : [relative(dist, path).split('\\').join('/')];
    })
    .sort();
}

/** A square PNG icon of `size` pixels: a shield-blue disc with a white ring on the header's dark background. */
function icon(size) {
  const row = size * 4 + 1;
  const pixels = Buffer.alloc(row * size);
  const centre = (size - 1) / 2;
  for (let y = 0; y < size; y += 1) {
    pixels[y * row] = 0; // filter: none
    for (let x = 0; x < size; x += 1) {
      const d = Math.hypot(x - centre, y - centre) / size;
      const [r, g, b] = d < 0.28 ? [29, 78, 216] : d < 0.34 ? [249, 250, 251] : [17, 24, 39];
      pixels.set([r, g, b, 255], y * row + 1 + x * 4);
    }
  }
  const chunk = (type, data) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
