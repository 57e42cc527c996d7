import { ConfigurationError } from '../errors/configuration-error.js';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { nodeBuiltin } from '../runtime/node-builtin.js';
import { configFromEnvironment, type Environment, processEnvironment } from './environment.js';
import { toConfigurationIssues } from './format-issues.js';
import { isPlainObject, mergeConfig } from './merge-config.js';
import { type ThreatConfig, ThreatConfigSchema } from './schema.js';

/** The file names `loadConfig` looks for, in order, when no `file` is given. */
export const CONFIG_FILE_NAMES: readonly string[] = ['threatlib.config.js', 'threatlib.config.mjs'];

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Profile to use; defaults to `THREATLIB_PROFILE`, then to a profile named `default`. */
  profile?: string;
  /** Directory searched for `threatlib.config.js` (default: the current working directory). */
  cwd?: string;
  /** A config file path (absolute, or relative to `cwd`) to use instead of searching. */
  file?: string;
  /** Environment to read (default: `process.env`). */
  env?: Environment;
}

/**
 * What a configuration file needs of Node.js, taken through `process.getBuiltinModule` so that a page's bundler never
 * meets it; in a page, {@link loadConfig} is refused.
 */
function nodeModules(): {
  existsSync(path: string): boolean;
  resolve(...paths: string[]): string;
  pathToFileURL(path: string): URL;
} {
  const fs = nodeBuiltin<{ existsSync(path: string): boolean }>('node:fs');
  const path = nodeBuiltin<{ resolve(...paths: string[]): string }>('node:path');
  const url = nodeBuiltin<{ pathToFileURL(path: string): URL }>('node:url');
  if (!fs || !path || !url) {
    throw new RuntimeUnsupportedError(
      'configuration file',
      'loadConfig reads a configuration file, which needs Node.js: in a page, pass the configuration object to ' +
        'new ThreatClient(config)',
    );
  }
  return { existsSync: fs.existsSync, resolve: path.resolve, pathToFileURL: url.pathToFileURL };
}

/**
 * Reads a profile from `threatlib.config.js` (an ES module whose default export is an object keyed by profile
 * name) and lays the environment variables over it. The result is validated, then returned as written (defaults
 * not yet filled), ready for `new ThreatClient(config)`.
 *
 * Precedence, lowest first: schema defaults, the file's profile, environment variables, the constructor object.
 * Node.js only: in a page it is refused with a RuntimeUnsupportedError.
 *
 * @throws {ConfigurationError} when the file is missing or malformed, the profile does not exist, a variable is
 *   malformed, or the merged configuration is invalid (each path is followed by the profile name).
 * @example
 * ```ts
 * const config = await loadConfig({ profile: 'production' });
 * const client = new ThreatClient(config);
 * ```
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ThreatConfig> {
  const { existsSync, resolve, pathToFileURL } = nodeModules();
  const env = options.env ?? processEnvironment();
  const cwd = options.cwd ?? (globalThis as { process?: { cwd(): string } }).process?.cwd() ?? '.';

  const file = options.file
    ? resolve(cwd, options.file)
    : CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((candidate) => existsSync(candidate));
  if (!file || !existsSync(file)) {
    const where = options.file ? resolve(cwd, options.file) : `${CONFIG_FILE_NAMES.join(' or ')} in ${cwd}`;
    throw new ConfigurationError([{ path: 'config file', message: `not found: ${where}` }]);
  }

  let exported: unknown;
  try {
    const module = (await import(/* webpackIgnore: true */ /* @vite-ignore */ pathToFileURL(file).href)) as {
      default?: unknown;
    };
    exported = module.default;
  } catch (error) {
    throw new ConfigurationError([{ path: file, message: `could not be loaded: ${(error as Error).message}` }], {
      cause: error,
    });
  }
  if (!isPlainObject(exported)) {
    throw new ConfigurationError([
      { path: file, message: 'expected a default export: an object keyed by profile name' },
    ]);
  }

  const names = Object.keys(exported);
  const requested = options.profile ?? nonEmpty(env.THREATLIB_PROFILE) ?? 'default';
  // Own profiles only: `__proto__` or `constructor` would otherwise name Object.prototype or Object.
  const profile = Object.hasOwn(exported, requested) ? exported[requested] : undefined;
  if (!isPlainObject(profile)) {
    const how = options.profile
      ? 'profile option'
      : env.THREATLIB_PROFILE
        ? 'THREATLIB_PROFILE'
        : 'no profile chosen, so';
    throw new ConfigurationError([
      {
        path: `profile "${requested}"`,
        message: `${how} names a profile the file does not have (${file} has: ${names.join(', ') || 'none'})`,
      },
    ]);
  }

  const merged = mergeConfig<ThreatConfig>(profile, configFromEnvironment(env, profile));
  const result = ThreatConfigSchema.safeParse(merged);
  if (!result.success) {
    const issues = toConfigurationIssues(result.error.issues, { input: merged, schema: ThreatConfigSchema }).map(
      (issue) => ({
        path: `${issue.path} (profile "${requested}")`,
        message: issue.message,
      }),
    );
    throw new ConfigurationError(issues);
  }
  return merged;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
