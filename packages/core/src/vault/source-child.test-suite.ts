import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** This package's source entry point, which a child imports. */
const SOURCE_INDEX = fileURLToPath(new URL('../index.ts', import.meta.url));

// A child runs this package's source with Node's built-in type stripping, so a test needs no build and can never
// exercise a stale dist/. Sources import `./x.js` where `./x.ts` is on disk; this hook maps one to the other, as tsc
// does at build time.
const RESOLVE_HOOK = `
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && specifier.startsWith('.') && specifier.endsWith('.js')) {
      return next(specifier.slice(0, -3) + '.ts', context);
    }
    throw error;
  }
}
`;

/**
 * Writes `name` into `dir`: a module that installs the resolve hook, imports the package's source as
 * `{ThreatClient, silentLogger}` and then runs `body` (top-level await allowed). Returns its path.
 */
export async function writeSourceChild(dir: string, name: string, body: string): Promise<string> {
  await writeFile(join(dir, 'resolve-ts.mjs'), RESOLVE_HOOK);
  const path = join(dir, name);
  await writeFile(
    path,
    `import { register } from 'node:module';
register(new URL('./resolve-ts.mjs', import.meta.url));
const { ThreatClient, silentLogger } = await import(${JSON.stringify(SOURCE_INDEX)});
${body}`,
  );
  return path;
}

/**
 * Runs a script written by {@link writeSourceChild} with the Node.js binary `node` and returns what it printed as
 * JSON. Node.js 22.6 to 23.5 strip types only with `--experimental-strip-types`; later versions do by default, and
 * take the flag all the same.
 */
export async function runSourceChild(
  node: string,
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    node,
    ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', script, ...args],
    { env: { ...process.env, ...env }, timeout: 60_000 },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}
