import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ListLoadError } from './list-load-error.js';

/** A list file's path as error messages show it. */
export function describeListFile(file: string | URL): string {
  return file instanceof URL ? (file.protocol === 'file:' ? fileURLToPath(file) : file.href) : file;
}

/**
 * Reads a list file as UTF-8 text, without a byte-order mark.
 *
 * @throws {@link ListLoadError} naming the file when it cannot be read, with the reason in plain words.
 */
export async function readListFile(file: string | URL): Promise<string> {
  const source = describeListFile(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
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
