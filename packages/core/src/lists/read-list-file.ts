import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { nodeBuiltin } from '../runtime/node-builtin.js';
import { ListLoadError } from './list-load-error.js';

/*
 * Node's file system is taken through `process.getBuiltinModule`, so that a page's bundler never meets it: in a page,
 * reading a list file is refused with a RuntimeUnsupportedError.
 */

interface NodeFs {
  readFile(path: string | URL, encoding: 'utf8'): Promise<string>;
}

/** `url` as a path of this system (`file:` URLs only). */
function fileURLToPath(url: URL): string {
  const convert = nodeBuiltin<{ fileURLToPath(url: URL): string }>('node:url')?.fileURLToPath;
  return convert ? convert(url) : decodeURIComponent(url.pathname);
}

/** A list file's path as error messages show it. */
export function describeListFile(file: string | URL): string {
  return file instanceof URL ? (file.protocol === 'file:' ? fileURLToPath(file) : file.href) : file;
}

/**
 * Reads a list file as UTF-8 text, without a byte-order mark.
 *
 * @throws {@link ListLoadError} naming the file when it cannot be read, with the reason in plain words.
 * @throws {RuntimeUnsupportedError} in a page.
 */
export async function readListFile(file: string | URL): Promise<string> {
  const source = describeListFile(file);
  const fs = nodeBuiltin<NodeFs>('node:fs/promises');
  if (!fs) {
    throw new RuntimeUnsupportedError(
      'list file',
      `lists[].file is not available in the browser: reading ${source} needs Node.js; in a page, parse the ` +
        "list's text with parseLocalList (@threatlib/core/lists) and add it with client.addList, or read a MISP " +
        'feed by URL (lists[].misp.url)',
    );
  }
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new ListLoadError(source, describeReadError(error), { cause: error });
  }
  // Spreadsheet programs and Windows editors start UTF-8 files with a BOM; it is not part of the first entry.
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

function describeReadError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'the file does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied reading the file';
  if (code === 'EISDIR') return 'it is a directory, not a file';
  return `the file cannot be read (${(error as Error).message})`;
}
