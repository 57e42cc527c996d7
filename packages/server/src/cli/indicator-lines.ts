import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

/**
 * Most characters of a line kept, leading whitespace not counted: twice the 8 KiB an indicator may have, so a line
 * cut here is still refused as too long, while the memory a line costs stays bounded whatever the file holds (a
 * list with no newline at all, a binary file).
 */
const MAX_LINE_CHARS = 16 * 1024;

/**
 * Why `file` cannot be read as a list of indicators (it does not exist, is a directory, cannot be read), in words for
 * the command line; undefined when it can.
 */
export async function unreadableListFile(file: string): Promise<string | undefined> {
  try {
    const info = await stat(file);
    if (info.isFile() || info.isFIFO()) return undefined;
    return info.isDirectory() ? 'is a directory, not a file' : 'is not a regular file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'no such file';
    if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
    return `cannot be read (${code ?? 'unknown error'})`;
  }
}

/**
 * The indicators of a list file, one a line: each line trimmed, blank lines and `#` comments skipped. A line is read
 * a chunk at a time, never whole: past {@link MAX_LINE_CHARS} (leading whitespace aside) the rest is dropped as it
 * arrives, and the line is given cut, ending in `…`, so that checking it says it is too long (or holds whitespace).
 * A line whose rest is only whitespace is given whole, as a valid indicator padded with spaces is one.
 */
export function readIndicatorLines(file: string): AsyncGenerator<string> {
  return indicatorLines(createReadStream(file, { encoding: 'utf8' }) as AsyncIterable<string>);
}

/** {@link readIndicatorLines} over text arriving in chunks. */
export async function* indicatorLines(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let kept = '';
  let overlong = false;
  let moreAfterCut = false;
  const endLine = (): string | undefined => {
    const text = overlong && moreAfterCut ? `${kept}…` : kept.trim();
    kept = '';
    overlong = false;
    moreAfterCut = false;
    return text === '' || text.startsWith('#') ? undefined : text;
  };
  for await (const chunk of chunks) {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf('\n', from);
      let piece = chunk.slice(from, newline === -1 ? chunk.length : newline);
      if (kept === '') piece = piece.trimStart();
      if (!overlong) {
        const room = MAX_LINE_CHARS - kept.length;
        kept += piece.slice(0, room);
        piece = piece.slice(room);
        overlong = piece !== '';
      }
      if (overlong && !moreAfterCut) moreAfterCut = /\S/.test(piece);
      if (newline === -1) break;
      const text = endLine();
      if (text !== undefined) yield text;
      from = newline + 1;
    }
  }
  const last = endLine();
  if (last !== undefined) yield last;
}

/**
 * An input as the table output shows it: as it is, or, when it holds a control character (an escape sequence that
 * would drive the terminal) or a bidirectional override, quoted as JSON so that each shows as an escape.
 */
export function shownLine(input: string): string {
  return UNSAFE_ON_A_TERMINAL.test(input) ? JSON.stringify(input) : input;
}

const UNSAFE_ON_A_TERMINAL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
