import { CONTROL_OR_SEPARATOR, codePointName } from '@threatlib/core/integration';

/** How a parser gives up: throws its format's error for `message` at `position` of the line. */
type Fail = (message: string, position: number) => never;

/**
 * Reads the `|`-separated header fields of a CEF or LEEF line from `start` (just past `CEF:0|` or `LEEF:2.0|`), one
 * per name of `fields`, each closed by an unescaped `|`. Both formats escape only `\|` and `\\` there and allow no line
 * break (nor, here, any other control or separator character); anything else is refused through `fail`, naming the
 * field.
 *
 * @returns the unescaped values, in order, and the offset just past the last closing `|`.
 */
export function readPipeHeader(
  line: string,
  start: number,
  fields: readonly string[],
  fail: Fail,
): { header: string[]; end: number } {
  let i = start;
  const header: string[] = [];
  for (const field of fields) {
    let value = '';
    for (;;) {
      const c = line[i];
      if (c === undefined) return fail(`the header ends before ${field} and its closing "|"`, i);
      if (c === '|') {
        i += 1;
        break;
      }
      if (c === '\\') {
        const next = line[i + 1];
        if (next !== '|' && next !== '\\') return fail(`"\\" in ${field} must escape "|" or "\\"`, i);
        value += next;
        i += 2;
        continue;
      }
      if (c === '\n' || c === '\r') return fail(`${field} has a line break`, i);
      if (CONTROL_OR_SEPARATOR.test(c)) return fail(`${field} has the control character ${codePointName(c)}`, i);
      value += c;
      i += 1;
    }
    header.push(value);
  }
  return { header, end: i };
}
