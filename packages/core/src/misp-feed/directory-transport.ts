import { utf8Text } from '../bytes/host-bytes.js';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { nodeBuiltin } from '../runtime/node-builtin.js';
import { checkFeedFileName, MispFeedReadError, type MispFeedTransport } from './misp-feed-transport.js';

/** What the transport uses of `node:fs/promises` (declared here: the module also compiles for pages). */
interface FileHandle {
  stat(): Promise<{ isFile(): boolean; size: number }>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/**
 * A MISP feed on disk: `<directory>/manifest.json` and `<directory>/<uuid>.json`, as PyMISP's feed generator writes
 * them and as MISP reads a feed whose input source is "local". Relative directories resolve against the working
 * directory. A file larger than the limit is refused after reading at most one byte past it.
 */
export function directoryTransport(directory: string): MispFeedTransport {
  // Through `process.getBuiltinModule`, so that a page's bundler never meets them.
  const fs = nodeBuiltin<{ open(path: string, flags: string): Promise<FileHandle> }>('node:fs/promises');
  const paths = nodeBuiltin<{ join(...parts: string[]): string; resolve(path: string): string }>('node:path');
  if (!fs || !paths) {
    throw new RuntimeUnsupportedError(
      'MISP feed directory',
      'lists[].misp.directory is not available in the browser: it needs Node.js (a directory on disk); in a page, ' +
        'read the feed by URL (lists[].misp.url)',
    );
  }
  const { join, resolve } = paths;
  const root = resolve(directory);
  return {
    location: root,
    async read(name, options) {
      const path = join(root, checkFeedFileName(name));
      let handle: FileHandle;
      try {
        handle = await fs.open(path, 'r');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') throw new MispFeedReadError('missing', `${name} is not in ${root}`, { cause: error });
        throw new MispFeedReadError(
          'unreadable',
          `${name} in ${root} cannot be read (${code ?? (error as Error).message})`,
          {
            cause: error,
          },
        );
      }
      try {
        const info = await handle.stat();
        if (!info.isFile()) throw new MispFeedReadError('unreadable', `${name} in ${root} is not a file`);
        if (info.size > options.maxBytes) throw tooLarge(name, root, options.maxBytes);
        // The file may grow between stat and read: read one byte past the limit to notice.
        const buffer = new Uint8Array(Math.min(info.size, options.maxBytes) + 1);
        let length = 0;
        for (;;) {
          options.signal?.throwIfAborted();
          const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
          if (bytesRead === 0) break;
          length += bytesRead;
          if (length > options.maxBytes) throw tooLarge(name, root, options.maxBytes);
          if (length === buffer.length) break;
        }
        const text = utf8Text(buffer.subarray(0, length));
        return { text: text.startsWith('\uFEFF') ? text.slice(1) : text };
      } catch (error) {
        if (error instanceof MispFeedReadError) throw error;
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw new MispFeedReadError('unreadable', `${name} in ${root} cannot be read (${reason})`, { cause: error });
      } finally {
        await handle.close();
      }
    },
  };
}

function tooLarge(name: string, root: string, max: number): MispFeedReadError {
  return new MispFeedReadError('too large', `${name} in ${root} is larger than ${max} bytes`);
}
