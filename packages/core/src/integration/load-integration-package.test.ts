import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const LOADER = fileURLToPath(new URL('./load-integration-package.ts', import.meta.url));

// pnpm's isolated layout: the application's node_modules holds @threatlib/not-a-real-integration, and core (here: its source, where no
// @threatlib/not-a-real-integration is installed anywhere above it) cannot import it from its own location.
describe('importIntegrationPackage, the default loader', () => {
  let app: string;
  let elsewhere: string;

  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'threatlib-app-'));
    elsewhere = await mkdtemp(join(tmpdir(), 'threatlib-elsewhere-'));
    const pkg = join(app, 'node_modules', '@threatlib', 'not-a-real-integration');
    await mkdir(join(pkg, 'dist'), { recursive: true });
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', type: 'module' }));
    await writeFile(
      join(pkg, 'package.json'),
      JSON.stringify({
        name: '@threatlib/not-a-real-integration',
        type: 'module',
        exports: { '.': { default: './dist/index.js' } },
      }),
    );
    await writeFile(join(pkg, 'dist', 'index.js'), 'export const createFakeIntegration = () => "built";\n');
  });

  afterAll(async () => {
    await rm(app, { recursive: true, force: true });
    await rm(elsewhere, { recursive: true, force: true });
  });

  async function loadFrom(cwd: string): Promise<Record<string, unknown>> {
    const script = `
      const { importIntegrationPackage, isPackageNotFound } = await import(${JSON.stringify(LOADER)});
      try {
        const module = await importIntegrationPackage('@threatlib/not-a-real-integration');
        console.log(JSON.stringify({ exports: Object.keys(module), built: module.createFakeIntegration() }));
      } catch (error) {
        console.log(JSON.stringify({ notFound: isPackageNotFound(error, '@threatlib/not-a-real-integration'), message: error.message }));
      }`;
    const { stdout } = await run(
      process.execPath,
      ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script],
      // Without NODE_PATH (pnpm sets it to its hoisted store): only the directories say what is installed.
      { cwd, timeout: 30_000, env: { ...process.env, NODE_PATH: '' } },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it("finds a package installed in the application's directory that core cannot see from its own", async () => {
    expect(await loadFrom(app)).toEqual({ exports: ['createFakeIntegration'], built: 'built' });
  });

  it('reports a package installed nowhere as not installed, naming it', async () => {
    const outcome = await loadFrom(elsewhere);
    expect(outcome.notFound).toBe(true);
    expect(outcome.message).toContain("'@threatlib/not-a-real-integration'");
  });
});
