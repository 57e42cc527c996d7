// Copies the parts of swagger-ui-dist that `/docs` serves into dist/docs-ui/, so the published package carries
// 1.9 MB of it (the bundle, its style sheet and their licences) instead of depending on all 11 MB of swagger-ui-dist
// (and the install-time analytics of its @scarf/scarf dependency). Run by `pnpm run build` after tsc.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const from = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
const to = fileURLToPath(new URL('../dist/docs-ui/', import.meta.url));
mkdirSync(to, { recursive: true });

// The source maps are not shipped: drop the comments that point a browser's developer tools at them.
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
  const text = readFileSync(join(from, file), 'utf8').replace(/\n?\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/, '\n');
  writeFileSync(join(to, file), text);
}
for (const file of ['LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt'])
  copyFileSync(join(from, file), join(to, file));
const { version } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
writeFileSync(join(to, 'VERSION'), `swagger-ui-dist ${version}\n`);
