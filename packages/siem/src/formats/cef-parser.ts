/*
 * A strict reader of the CEF of "Micro Focus Security ArcSight Common Event Format, Implementing ArcSight CEF,
 * Version 25" (see ./cef.ts for the rules it enforces). It accepts exactly what the standard defines and refuses the
 * rest with the position of the fault, so a test can tell a formatter that escapes correctly from one that happens to
 * produce something a lenient parser guesses right.
 */

import { CONTROL_OR_SEPARATOR, codePointName } from '@threatlib/core/integration';
import { CEF_SEVERITY_WORDS, type CefEvent, isCefSeverity } from './cef.js';
import { EventFormatError, excerpt } from './event-format-error.js';
import { readPipeHeader } from './pipe-header.js';

const HEADER_FIELDS = ['deviceVendor', 'deviceProduct', 'deviceVersion', 'deviceEventClassId', 'name', 'severity'];
const KEY_CHAR = /[A-Za-z0-9]/;
const FIRST_KEY = /[A-Za-z0-9]+=/y;

/**
 * Reads one CEF line (without a syslog header): the header fields unescaped and the extension as a map.
 *
 * Refused: a line not starting `CEF:0|` or `CEF:1|`; fewer than seven header fields (the `|` after Severity is
 * required); in the header, a backslash not followed by `|` or `\`, or a line break; a severity CEF does not define;
 * in the extension, a pair not of the form `key=value` with a letters-and-digits key, a space before the first key,
 * an `=` inside a value that is not escaped, an escape other than `\\`, `\=`, `\n`, `\r`, a raw line break, and a key
 * given twice. Beyond the standard, any other raw control or separator character (NUL, a tab, NEL, U+2028...) is
 * refused too: receivers may end a record at it, and `formatCef` never writes one.
 *
 * @throws {EventFormatError} naming what is wrong and where (`position`).
 */
export function parseCef(line: string): CefEvent {
  const fail = (message: string, position: number): never => {
    throw new EventFormatError('cef', `${message} at offset ${position} (${excerpt(line, position)})`, position);
  };
  const version = /^CEF:([01])\|/.exec(line);
  if (!version) return fail('expected "CEF:0|" or "CEF:1|" at the start', 0);

  const read = readPipeHeader(line, version[0].length, HEADER_FIELDS, fail);
  const { header } = read;
  const i = read.end;
  const [deviceVendor, deviceProduct, deviceVersion, deviceEventClassId, name, severity] = header as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!isCefSeverity(severity)) {
    fail(`severity must be 0 to 10 or one of ${CEF_SEVERITY_WORDS.join(', ')}`, i - severity.length - 1);
  }
  return {
    version: version[1] === '1' ? 1 : 0,
    deviceVendor,
    deviceProduct,
    deviceVersion,
    deviceEventClassId,
    name,
    severity,
    extension: parseExtension(line, i, fail),
  };
}

/** The extension from `start` to the end of `line`. */
function parseExtension(
  line: string,
  start: number,
  fail: (message: string, position: number) => never,
): Record<string, string> {
  const extension: Record<string, string> = {};
  if (start === line.length) return extension;
  FIRST_KEY.lastIndex = start;
  const first = FIRST_KEY.exec(line);
  if (!first) return fail('the extension must start with key= (letters and digits, then "=")', start);

  let key = first[0].slice(0, -1);
  let value = '';
  let keyPosition = start;
  let valueStart = start + first[0].length;
  const keep = () => {
    if (Object.hasOwn(extension, key)) fail(`extension key "${key}" is given twice`, keyPosition);
    extension[key] = value;
  };
  for (let i = valueStart; i < line.length; ) {
    const c = line[i] as string;
    if (c === '\\') {
      const next = line[i + 1];
      const decoded = next === '\\' ? '\\' : next === '=' ? '=' : next === 'n' ? '\n' : next === 'r' ? '\r' : undefined;
      if (decoded === undefined) fail('"\\" in an extension value must escape "\\", "=", or be \\n or \\r', i);
      value += decoded;
      i += 2;
      continue;
    }
    if (c === '\n' || c === '\r') fail('a line break in an extension value must be written \\n or \\r', i);
    if (CONTROL_OR_SEPARATOR.test(c)) fail(`an extension value has the raw control character ${codePointName(c)}`, i);
    if (c === '=') {
      // Either the "=" of the next pair (" key=" follows the value) or one the formatter failed to escape.
      let keyStart = i;
      while (keyStart > valueStart && KEY_CHAR.test(line[keyStart - 1] as string)) keyStart -= 1;
      if (keyStart === i || keyStart - 1 < valueStart || line[keyStart - 1] !== ' ') {
        fail('an "=" in an extension value must be escaped as \\=', i);
      }
      value = value.slice(0, value.length - (i - keyStart) - 1);
      keep();
      key = line.slice(keyStart, i);
      keyPosition = keyStart;
      value = '';
      valueStart = i + 1;
      i += 1;
      continue;
    }
    value += c;
    i += 1;
  }
  keep();
  return extension;
}
