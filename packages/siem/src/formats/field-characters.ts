// What CEF and LEEF do with control and line-separator characters. Neither format defines an escape for them beyond
// its own (CEF: `\n` and `\r` in extension values; LEEF, as ./leef.ts writes it: `\n`, `\r`, `\t`), and receivers end
// a record at NUL, NEL (U+0085) or a line break of any kind (Unicode-aware ones also at VT, FF, U+2028 and U+2029).
// So, in every field:
// - a header field is one line of text: any control or separator character there is refused (the alert mappings
//   make the title one line first, with `oneLine`);
// - in a value, every Unicode line break (LF, CR, and VT, FF, NEL, U+2028, U+2029, which have no escape of their
//   own) is written as the format's line-break escape (`\n`, or `\r` for CR), a tab as LEEF's `\t` or, in CEF, which
//   has none, as a space; every other control character (NUL, the rest of C0, DEL, C1) becomes U+FFFD, the
//   replacement character, visible where the receiver shows it.
import { CONTROL_OR_SEPARATOR, codePointName } from '@threatlib/core/integration';
import { EventFormatError, type EventFormatName } from './event-format-error.js';

/** The character written for a control character that has no escape: U+FFFD REPLACEMENT CHARACTER. */
const REPLACEMENT_CHARACTER = '\ufffd';

/** Unicode line breaks other than LF and CR: written as the format's `\n`. */
const OTHER_LINE_BREAKS = new Set(['\v', '\f', '\u0085', '\u2028', '\u2029']);

/**
 * How a value writes `c`, a control or separator character, given the format's escapes for a tab (`\t` or a space).
 */
export function controlInValue(c: string, tab: string): string {
  if (c === '\n' || OTHER_LINE_BREAKS.has(c)) return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return tab;
  return REPLACEMENT_CHARACTER;
}

/**
 * Refuses a header field holding a control or separator character: a header is one line of text.
 *
 * @throws {EventFormatError} naming the field and the character.
 */
export function checkHeaderField(format: EventFormatName, field: string, value: string): void {
  const found = CONTROL_OR_SEPARATOR.exec(value);
  if (found) {
    throw new EventFormatError(
      format,
      `${field} has the control or line-separator character ${codePointName(found[0])}; a header field is one line of text`,
    );
  }
}

const LINE_BREAKS_AND_TABS = /[\t\n\v\f\r\u0085\u2028\u2029]+/gu;
const OTHER_CONTROLS = /\p{Cc}/gu;

/**
 * `text` as one line fit for a header field: each run of line breaks and tabs becomes a space, every other control
 * character U+FFFD.
 *
 * @example
 * ```ts
 * oneLine('Phishing\r\nwave\u0000'); // 'Phishing wave\ufffd'
 * ```
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKS_AND_TABS, ' ').replace(OTHER_CONTROLS, REPLACEMENT_CHARACTER);
}
