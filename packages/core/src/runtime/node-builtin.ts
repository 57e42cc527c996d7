/**
 * A Node.js built-in module, or undefined outside Node.js. It goes through `process.getBuiltinModule` (Node.js 22.3
 * and later), which exists for exactly this: a module that also runs in a browser uses a built-in when it runs in
 * Node.js, without an `import` that a browser bundler would have to resolve (and fail on). So code that needs a
 * built-in only for a Node-only feature (a file, the inspector) can sit in a module a page imports, and refuse that
 * feature with a clear error there instead of breaking the page's bundle.
 *
 * The caller says what it expects of the module (a few functions) with `T`; nothing checks it at run time.
 *
 * @example
 * ```ts
 * const fs = nodeBuiltin<{ readFile(path: string): Promise<Uint8Array> }>('node:fs/promises');
 * if (!fs) throw new Error('reading a file needs Node.js');
 * ```
 */
export function nodeBuiltin<T>(name: `node:${string}`): T | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const load = process?.getBuiltinModule;
  if (typeof load !== 'function') return undefined;
  return (load.call(process, name) as T | undefined) ?? undefined;
}
