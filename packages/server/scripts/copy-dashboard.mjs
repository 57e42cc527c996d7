// Copies the dashboard's built files (@threatlib/dashboard, a private workspace package built before this one) into
// dist/app/, which `/app` serves and the published package carries. Run by `pnpm run build` after tsc.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const from = join(dirname(fileURLToPath(import.meta.resolve('@threatlib/dashboard/package.json'))), 'dist');
const to = fileURLToPath(new URL('../dist/app/', import.meta.url));
if (!existsSync(join(from, 'index.html'))) {
  throw new Error(`the dashboard is not built (${from} has no index.html): run pnpm run build at the repository root`);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
