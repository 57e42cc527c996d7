// What the consumer check does to the published packages, the way a user meets them: each one packed with `pnpm pack`
// (the tarball npm would publish, with `workspace:` and `catalog:` ranges made real), installed with npm from those
// tarballs into an empty project, type-checked with strict TypeScript (NodeNext) and run with Node.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);

/** A published package as packed: its tarball and the manifest inside it. */
export interface PackedPackage {
  name: string;
  /** The directory under `packages/` (`siem`). */
  dir: string;
  tarball: string;
  manifest: {
    version: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
}

/** What a command printed, and how it ended. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end (never throws for a failure: the caller reads `code`). */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        // A command that could not start (ENOENT: npm not installed) or was killed says so.
        const why = error && code === null ? `\n${command}: ${error.message}` : '';
        resolve({ code, stdout, stderr: `${stderr}${why}`, ms: Math.round(performance.now() - started) });
      },
    );
  });
}

/** The packages of `packages/` that are published (not `private`). */
function publishedPackages(): { name: string; dir: string }[] {
  return readdirSync(join(ROOT, 'packages'))
    .map((dir) => ({ dir, manifest: readJson(join(ROOT, 'packages', dir, 'package.json')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: String(manifest.name), dir }));
}

/**
 * Packs every published package into `destination` with `pnpm pack` (from their built `dist`), as many at once as
 * `concurrency` allows.
 */
export async function packAll(destination: string, concurrency = 3): Promise<Map<string, PackedPackage>> {
  await mkdir(destination, { recursive: true });
  const packed = new Map<string, PackedPackage>();
  await inParallel(publishedPackages(), concurrency, async ({ name, dir }) => {
    const outcome = await run('pnpm', ['pack', '--pack-destination', destination], {
      cwd: join(ROOT, 'packages', dir),
      timeoutMs: 120_000,
    });
    if (outcome.code !== 0) throw new Error(`pnpm pack of ${name} failed:\n${outcome.stderr || outcome.stdout}`);
    // pnpm prints the tarball's path last.
    const path = outcome.stdout.trim().split('\n').at(-1)?.trim() ?? '';
    if (!path.endsWith('.tgz')) throw new Error(`pnpm pack of ${name} named no tarball:\n${outcome.stdout}`);
    const manifest = await manifestOf(path);
    packed.set(name, { name, dir, tarball: path, manifest });
  });
  return packed;
}

/** The package.json inside a tarball. */
async function manifestOf(tarball: string): Promise<PackedPackage['manifest']> {
  const outcome = await run('tar', ['-xzOf', tarball, 'package/package.json'], { cwd: ROOT, timeoutMs: 30_000 });
  if (outcome.code !== 0) throw new Error(`cannot read package.json in ${tarball}: ${outcome.stderr}`);
  return JSON.parse(outcome.stdout) as PackedPackage['manifest'];
}

/**
 * An empty project in `dir` with `specs` installed by npm (tarball paths and `name@range`s). npm's cache is the
 * machine's, and `--prefer-offline` takes what it holds without asking the registry again.
 */
export async function installProject(dir: string, specs: readonly string[]): Promise<Outcome> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type: 'module' })}\n`,
  );
  const outcome = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs],
    { cwd: dir, env: consumerEnv(), timeoutMs: 600_000 },
  );
  if (outcome.code !== 0) {
    throw new Error(`npm install ${specs.join(' ')} failed in ${dir}:\n${outcome.stderr || outcome.stdout}`);
  }
  return outcome;
}

/**
 * Type-checks `files` of the project in `dir` with strict TypeScript (NodeNext) and compiles them to `out/`. The
 * compiler and Node's types are the repository's, so that they are not counted in the project's install.
 */
export async function typecheck(dir: string, files: readonly string[], options: { skipLibCheck: boolean }) {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2023',
      lib: ['ES2023'],
      outDir: 'out',
      rootDir: '.',
      skipLibCheck: options.skipLibCheck,
      types: ['node'],
      typeRoots: [join(ROOT, 'e2e', 'node_modules', '@types')],
    },
    files,
  };
  await writeFile(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], {
    cwd: dir,
    env: consumerEnv(),
    timeoutMs: 300_000,
  });
}

/**
 * The environment of a command run in a consumer project: this one's, without NODE_PATH (pnpm points it at the
 * workspace's hoisted packages, where `require` would find every SDK whether the project installed it or not).
 */
function consumerEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_PATH: _workspacePackages, ...rest } = process.env;
  return { ...rest, ...env };
}

/** Runs a compiled file of the project (`out/<name>.js`) with Node, with `env` added to the environment. */
export function runCompiled(dir: string, name: string, env: Record<string, string>, timeoutMs = 120_000) {
  return run(process.execPath, [join('out', name.replace(/\.ts$/, '.js'))], {
    cwd: dir,
    env: consumerEnv(env),
    timeoutMs,
  });
}

/** Bytes on disk under `dir` (as `du` counts: allocated blocks), following no links. */
export async function diskUsage(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true });
  const sizes = await Promise.all(
    entries.map(async (entry): Promise<number> => {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) return 0;
      if (entry.isDirectory()) return diskUsage(path);
      return (await stat(path)).blocks * 512;
    }),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

/** The first ```ts block of a package's README: the example a user tries first. */
export function firstTypeScriptExample(dir: string): string {
  const readme = readFileSync(join(ROOT, 'packages', dir, 'README.md'), 'utf8');
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(readme);
  if (!block?.[1]) throw new Error(`packages/${dir}/README.md has no \`\`\`ts block`);
  return block[1];
}

/** Runs `work` on each item, at most `limit` at once; rejects with the first failure once all have ended. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  const queue = [...items];
  const failures: unknown[] = [];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        await work(item).catch((error: unknown) => failures.push(error));
      }
    }),
  );
  if (failures.length > 0) throw failures[0];
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}
