import { nodeBuiltin } from '../runtime/node-builtin.js';

/**
 * The directory the file cache uses when none is given, and under which TAXII lists keep their state by default:
 * `threatlib-cache` in the system's temporary directory. Undefined where there is no Node.js (a page has no
 * directory). It reaches `node:os` and `node:path` through `process.getBuiltinModule`, so a module that a page loads
 * can ask for it.
 */
export function defaultFileCacheDirectory(): string | undefined {
  const os = nodeBuiltin<{ tmpdir(): string }>('node:os');
  const path = nodeBuiltin<{ join(...parts: string[]): string }>('node:path');
  return os && path ? path.join(os.tmpdir(), 'threatlib-cache') : undefined;
}
