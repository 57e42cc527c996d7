/**
 * Imports an integration package by name and resolves with its module namespace. `client.start()` calls it once per
 * package a configured integration needs.
 */
export type IntegrationPackageLoader = (packageName: string) => Promise<unknown>;

/**
 * The default {@link IntegrationPackageLoader}: `import(packageName)`, resolved the way Node resolves any import made
 * by `@threatlib/core` (from its own location, up through the application's `node_modules`).
 */
export const importIntegrationPackage: IntegrationPackageLoader = (packageName) =>
  import(/* @vite-ignore */ packageName);

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
