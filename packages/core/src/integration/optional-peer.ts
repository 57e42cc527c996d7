import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigurationError } from '../errors/configuration-error.js';
import { isPackageNotFound } from './load-integration-package.js';

/** Where an integration loads its optional peers from, and what to say when one is missing. */
export interface OptionalPeerRequest {
  /**
   * The URL of the module that needs the packages (its `import.meta.url`): they are resolved from there first, as
   * that module's own `import` would resolve them, then from the application's directory.
   */
  from: string;
  /** The option whose value needs them (`platform`, `integrations.siem.platform`), for the error's path. */
  path: string;
  /** What needs them, for the message (`siem_c (Elastic)`). */
  neededFor: string;
}

/**
 * Loads packages an integration declares as optional peer dependencies (a vendor's SDK that only one of its
 * platforms uses), at the first use of what needs them rather than when the integration is imported, so that an
 * application installs, and loads, only the SDKs of what it uses.
 *
 * Each package is loaded with `require` (Node loads an ES module through it too, and a package that is both takes
 * its CommonJS build), synchronously, so that a constructor can build the SDK's clients at once. It is resolved from
 * `from` (the integration's own module: npm's and yarn's flat layouts, pnpm's links of an installed peer), and when
 * it is not found there from the application's directory (`process.cwd()`), where an application installed it when
 * the integration was linked from elsewhere, as `@threatlib/core`'s integration loader does.
 *
 * @returns the packages' modules, in the order of `packageNames`.
 * @throws {ConfigurationError} when one or more are not installed: `Configuration invalid: <path>: <neededFor> needs
 * <packages>, which <is|are> not installed: npm install <package@range ...>` (the ranges of the integration's
 * `peerDependencies`, quoted for a shell), or when one is installed but fails to load (its error as the cause).
 *
 * @example
 * ```ts
 * type Elasticsearch = typeof import('@elastic/elasticsearch');
 * const [elasticsearch] = loadOptionalPeers<[Elasticsearch]>(['@elastic/elasticsearch'], {
 *   from: import.meta.url, path: 'platform', neededFor: 'siem_c (Elastic)',
 * });
 * const client = new elasticsearch.Client({ node });
 * ```
 */
export function loadOptionalPeers<Modules extends unknown[]>(
  packageNames: { [K in keyof Modules]: string },
  request: OptionalPeerRequest,
): Modules {
  const loaded: unknown[] = [];
  const missing: string[] = [];
  for (const name of packageNames as readonly string[]) {
    try {
      loaded.push(requirePeer(name, request.from));
    } catch (error) {
      if (!isPackageNotFound(error, name)) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ConfigurationError(
          [
            {
              path: request.path,
              message: `${request.neededFor} needs ${name}, which is installed but failed to load: ${reason}`,
            },
          ],
          { cause: error },
        );
      }
      missing.push(name);
    }
  }
  if (missing.length > 0) {
    const ranges = peerRanges(request.from);
    const install = missing.map((name) => shellWord(ranges[name] ? `${name}@${ranges[name]}` : name)).join(' ');
    const which = missing.length === 1 ? 'which is' : 'which are';
    throw new ConfigurationError([
      {
        path: request.path,
        message: `${request.neededFor} needs ${listed(missing)}, ${which} not installed: npm install ${install}`,
      },
    ]);
  }
  return loaded as Modules;
}

/** `name` required from `from`, else from the application's directory; the first error when it is in neither. */
function requirePeer(name: string, from: string): unknown {
  try {
    return createRequire(from)(name);
  } catch (error) {
    if (!isPackageNotFound(error, name)) throw error;
    try {
      return createRequire(join(process.cwd(), 'package.json'))(name);
    } catch (fromApplication) {
      if (!isPackageNotFound(fromApplication, name)) throw fromApplication;
      throw error;
    }
  }
}

/**
 * The `peerDependencies` of the package `from` belongs to (its nearest `package.json`), so that the install hint
 * names the versions the integration works with. Empty when none can be read: the hint then names the packages only.
 */
function peerRanges(from: string): Record<string, string> {
  let directory = dirname(fileURLToPath(from));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
        peerDependencies?: Record<string, string>;
      };
      return manifest.peerDependencies ?? {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return {};
    }
    const parent = dirname(directory);
    if (parent === directory) return {};
    directory = parent;
  }
}

/** A package spec as one shell word: quoted when it has characters a shell reads (`^`, `>`, spaces). */
function shellWord(spec: string): string {
  return /^[\w@/.-]+$/.test(spec) ? spec : `'${spec}'`;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length <= 2 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
