/**
 * Imports an integration package by name and resolves with its module namespace. `client.start()` calls it once per
 * package a configured integration needs.
 */
export type IntegrationPackageLoader = (packageName: string) => Promise<unknown>;

/**
 * The default {@link IntegrationPackageLoader}. First `import(packageName)`, resolved the way Node resolves any
 * import made by `@threatlib/core` (from its own location, up through the application's `node_modules`: enough with
 * npm's and yarn's flat layouts). When that finds nothing, the package is resolved from the application's own
 * directory (`process.cwd()`), which is where pnpm's isolated layout puts what the application installed: core
 * cannot see its siblings there, because it does not depend on them. A package found in neither place is reported as
 * not installed; an application with another layout passes its own loader (`loadIntegrationPackage: (name) =>
 * import(name)`).
 */
export const importIntegrationPackage: IntegrationPackageLoader = async (packageName) => {
  try {
    return await import(/* webpackIgnore: true */ /* @vite-ignore */ packageName);
  } catch (error) {
    if (!isPackageNotFound(error, packageName)) throw error;
    const fromApplication = await resolveFromApplication(packageName);
    if (fromApplication === undefined) throw error;
    return import(/* webpackIgnore: true */ /* @vite-ignore */ fromApplication);
  }
};

/** The file URL `packageName` resolves to from the application's directory, or undefined when it is not there. */
async function resolveFromApplication(packageName: string): Promise<string | undefined> {
  // Through `process.getBuiltinModule`, so that a page's bundler never meets them; a page has no application
  // directory to look in. (Not through runtime/node-builtin.ts: a test runs this file alone, by Node's type
  // stripping, so it imports nothing of core.)
  const builtin = <T>(name: string): T | undefined =>
    (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(name) as
      | T
      | undefined;
  const module = builtin<{ createRequire(path: string): { resolve(id: string): string } }>('node:module');
  const path = builtin<{ join(...parts: string[]): string }>('node:path');
  const url = builtin<{ pathToFileURL(path: string): URL }>('node:url');
  if (!module || !path || !url) return undefined;
  const { createRequire } = module;
  const { join } = path;
  const { pathToFileURL } = url;
  try {
    // `require.resolve` honours the package's `exports` map (its `default` condition), which every @threatlib package
    // declares; the resolved file is then imported as ESM.
    const resolved = createRequire(join(process.cwd(), 'package.json')).resolve(packageName);
    return pathToFileURL(resolved).href;
  } catch {
    return undefined;
  }
}

/**
 * Whether `error` (thrown by a loader) says that `packageName` itself is not installed, as opposed to the package
 * being there and failing to load (one of its own dependencies missing, an error while it was evaluated).
 */
export function isPackageNotFound(error: unknown, packageName: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // Node: "Cannot find package '@threatlib/siem' imported from ..."; a missing file inside an installed package, or
  // a dependency of it, names another specifier.
  return typeof message === 'string' && message.includes(`'${packageName}'`);
}
