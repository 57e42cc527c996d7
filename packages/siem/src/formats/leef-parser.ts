/*
 * A strict reader of LEEF 1.0 and 2.0 as IBM's "Log Event Extended Format (LEEF) Version 2" defines it, with the
 * escapes ./leef.ts writes (see there for the rules). It refuses anything else with the position of the fault.
 */

import { CONTROL_OR_SEPARATOR, codePointName } from '@threatlib/core/integration';
import { EventFormatError, excerpt } from './event-format-error.js';
import { LEEF_KEY, type LeefEvent, type LeefVersion, leefDelimiterProblem } from './leef.js';
import { readPipeHeader } from './pipe-header.js';

const HEADER_FIELDS = ['vendor', 'product', 'productVersion', 'eventId'] as const;
const HEX_DELIMITER = /^(?:0x|x)([0-9a-f]{2})$/i;

/**
 * Reads one LEEF line (without a syslog header): the header fields unescaped, the delimiter, and the attributes as a
 * map.
 *
 * Refused: a line not starting `LEEF:1.0|` or `LEEF:2.0|`; fewer than the header's fields and their closing `|`; in
 * the header, a backslash not followed by `|` or `\`, or a line break; a LEEF 2.0 delimiter that cannot be one (`|`,
 * `=`, `\`, a line break); an attribute without `=` (which is what a delimiter left unescaped in a value turns
 * into), an empty attribute (a doubled or trailing delimiter), a key with whitespace, `|` or `\`, a backslash not
 * starting `\\`, `\n`, `\r` or `\t`, a raw line break, any other raw control or separator character in a value (a tab
 * that is not the delimiter, NUL, NEL, U+2028...: receivers may end a record at it, and `formatLeef` never writes
 * one), and a key given twice.
 *
 * @throws {EventFormatError} naming what is wrong and where (`position`).
 */
export function parseLeef(line: string): LeefEvent {
  const fail = (message: string, position: number): never => {
    throw new EventFormatError('leef', `${message} at offset ${position} (${excerpt(line, position)})`, position);
  };
  const start = /^LEEF:(1\.0|2\.0)\|/.exec(line);
  if (!start) return fail('expected "LEEF:1.0|" or "LEEF:2.0|" at the start', 0);
  const version = start[1] as LeefVersion;

  const read = readPipeHeader(line, start[0].length, HEADER_FIELDS, fail);
  const { header } = read;
  let i = read.end;

  let delimiter = '\t';
  if (version === '2.0') {
    // Optional in LEEF 2.0: a field that is one character or xHH / 0xHH names it; anything else is an attribute.
    const end = line.indexOf('|', i);
    const field = end === -1 ? undefined : line.slice(i, end);
    const hex = field === undefined ? null : HEX_DELIMITER.exec(field);
    const named = hex ? String.fromCharCode(Number.parseInt(hex[1] as string, 16)) : field?.length === 1 ? field : '';
    if (named !== '') {
      const problem = leefDelimiterProblem(named);
      if (problem) fail(`the delimiter ${problem}`, i);
      delimiter = named;
      i = (end as number) + 1;
    }
  }

  const [vendor, product, productVersion, eventId] = header as [string, string, string, string];
  return {
    version,
    vendor,
    product,
    productVersion,
    eventId,
    delimiter,
    attributes: attributes(line, i, delimiter, fail),
  };
}

/** The attributes from `start` to the end of `line`. */
function attributes(
  line: string,
  start: number,
  delimiter: string,
  fail: (message: string, position: number) => never,
): Record<string, string> {
  const result: Record<string, string> = {};
  if (start === line.length) return result;
  const shown = JSON.stringify(delimiter);
  let i = start;
  while (i <= line.length) {
    const pairStart = i;
    const equals = line.indexOf('=', i);
    const next = line.indexOf(delimiter, i);
    if (equals === -1 || (next !== -1 && next < equals)) {
      if (next === i || i === line.length) fail(`an empty attribute (a doubled or trailing ${shown} delimiter)`, i);
      fail(`an attribute without "=" (a ${shown} delimiter inside a value?)`, i);
    }
    const key = line.slice(i, equals);
    if (!LEEF_KEY.test(key))
      fail(`attribute key ${JSON.stringify(key)} must be non-empty, without whitespace, "|" or "\\"`, i);
    if (Object.hasOwn(result, key)) fail(`attribute key "${key}" is given twice`, i);
    let value = '';
    i = equals + 1;
    for (;;) {
      const c = line[i];
      if (c === undefined || c === delimiter) break;
      if (c === '\\') {
        const escaped = line[i + 1];
        const decoded =
          escaped === '\\'
            ? '\\'
            : escaped === 'n'
              ? '\n'
              : escaped === 'r'
                ? '\r'
                : escaped === 't'
                  ? '\t'
                  : undefined;
        if (decoded === undefined) fail('"\\" in a value must start \\\\, \\n, \\r or \\t', i);
        value += decoded;
        i += 2;
        continue;
      }
      if (c === '\n' || c === '\r') fail('a line break in a value must be written \\n or \\r', i);
      if (CONTROL_OR_SEPARATOR.test(c)) fail(`a value has the raw control character ${codePointName(c)}`, i);
      value += c;
      i += 1;
    }
    // Defined, not assigned: a `__proto__` key is an attribute like any other, not the object's prototype.
    Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
    if (i >= line.length) break;
    i += 1; // the delimiter
    if (i === line.length) fail(`an empty attribute (a trailing ${shown} delimiter)`, pairStart);
  }
  return result;
}
