/*
 * IBM QRadar Log Event Extended Format (LEEF), as defined by "IBM QRadar: Log Event Extended Format (LEEF) Version 2"
 * (IBM, 2013-2021; the DSM Guide's "LEEF overview": "LEEF event components", "Predefined LEEF event attributes",
 * "Custom event keys", "Best practices guidelines for LEEF events"), which covers LEEF 1.0 and 2.0:
 *
 *   LEEF:1.0|Vendor|Product|Version|EventID|key=value<tab>key=value...
 *   LEEF:2.0|Vendor|Product|Version|EventID|DelimiterCharacter|key=value<delimiter>key=value...
 *
 * - The header is pipe-delimited. Its fields are written with `\|` for a pipe and `\\` for a backslash (the escaping
 *   CEF defines for the same pipe-delimited header; QRadar's LEEF header is read the same way), and, as in CEF, a
 *   header field is one line.
 * - LEEF 1.0 separates attributes with a tab. LEEF 2.0 names its delimiter in the header: one character (`^`) or its
 *   hexadecimal code prefixed with `x` or `0x` (`x09` for a tab); without the field, a tab.
 * - Attributes are `key=value`. Keys must not contain spaces or equal signs; values must not contain the delimiter
 *   (IBM: "Values must not contain tabs"; "avoid tab, pipe, or caret delimiters in your event payload keys and
 *   values"). The first `=` of a pair ends the key, so a value may contain `=`. A key appears once.
 *
 * LEEF defines no escape for the delimiter in a value. This formatter therefore never puts one there: in LEEF 2.0 it
 * keeps the requested delimiter when no key or value contains it and otherwise writes the event with a tab
 * delimiter (`x09`), which the header announces; a tab in a value is then written `\t`, as it always is in LEEF 1.0.
 * Backslashes and line breaks in values are written `\\`, `\n` and `\r`, the CEF convention QRadar shows verbatim,
 * so that a value never ends the record or turns into a delimiter.
 *
 * LEEF has no escape for the other control characters either, and receivers end a record at NUL, NEL or any line
 * break. So (see ./field-characters.ts): a header field with any control or line-separator character is refused; in
 * a value, a tab is always written `\t` (IBM: "Values must not contain tabs"), VT, FF, NEL, U+2028 and U+2029 `\n`
 * like LF, every other control character U+FFFD; a key or a delimiter cannot be a control character (a tab
 * delimiter excepted). The line this formatter writes never holds a raw control or separator character other than
 * the tabs that delimit.
 */

import { quoteForDisplay } from '@threatlib/core/integration';
import { EventFormatError } from './event-format-error.js';
import { checkHeaderField, controlInValue } from './field-characters.js';

/** The LEEF versions. */
export const LEEF_VERSIONS = ['1.0', '2.0'] as const;

/** `1.0` (tab-delimited) or `2.0` (the delimiter named in the header). */
export type LeefVersion = (typeof LEEF_VERSIONS)[number];

/** A LEEF event: the header fields and the attributes (in the order given). */
export interface LeefEvent {
  version: LeefVersion;
  vendor: string;
  product: string;
  /** The header's third field: the version of the product. */
  productVersion: string;
  /** What kind of event this is (with the `cat` attribute, what QRadar maps to a QID). */
  eventId: string;
  /** The character between attributes: a tab in LEEF 1.0; in LEEF 2.0 the one the header names. */
  delimiter: string;
  /** Key to value. Keys have no whitespace, `=`, `|` or `\`. */
  attributes: Record<string, string>;
}

/** What {@link formatLeef} takes: a {@link LeefEvent} whose LEEF 2.0 delimiter may be left to the default. */
export type LeefEventInput = Omit<LeefEvent, 'delimiter'> & {
  /** LEEF 2.0 only: the delimiter to use when no key or value contains it (default `^`). */
  delimiter?: string;
};

/** The LEEF 2.0 delimiter used when none is asked for: IBM's own example's caret. */
export const DEFAULT_LEEF_DELIMITER = '^';

/** A valid attribute key: no whitespace, control or separator character, `=`, `|` or `\`. */
export const LEEF_KEY = /^[^\s\p{Cc}=|\\]+$/u;

/**
 * Why `delimiter` cannot separate LEEF attributes, or undefined when it can: a tab or one printable US-ASCII
 * character (a space included) other than `|` (the header's), `=` (the pairs') and `\` (the escapes'). No other
 * control character: a receiver may end the record at it.
 */
export function leefDelimiterProblem(delimiter: string): string | undefined {
  if (delimiter.length !== 1 || delimiter.charCodeAt(0) > 0x7e) return 'must be one US-ASCII character';
  if (/[|=\\]/.test(delimiter)) return `cannot be ${JSON.stringify(delimiter)}`;
  if (delimiter !== '\t' && delimiter.charCodeAt(0) < 0x20) {
    return `cannot be the control character ${JSON.stringify(delimiter)} (a tab or a printable character)`;
  }
  return undefined;
}

/** The LEEF 2.0 header field naming `delimiter`: the character itself when printable, else `xHH` (`x09`). */
function leefDelimiterField(delimiter: string): string {
  const code = delimiter.charCodeAt(0);
  return code > 0x20 && code < 0x7f ? delimiter : `x${code.toString(16).padStart(2, '0').toUpperCase()}`;
}

/** A header field with `\` and `|` escaped. */
function escapeLeefHeader(value: string): string {
  return value.replace(/[\\|]/g, (c) => `\\${c}`);
}

/** What an attribute value escapes or replaces: `\` and every control and separator character. */
const LEEF_VALUE_SPECIAL = /[\\\p{Cc}\u2028\u2029]/gu;

/** An attribute value with `\`, tabs and line breaks escaped, other controls replaced. */
function escapeLeefValue(value: string): string {
  return value.replace(LEEF_VALUE_SPECIAL, (c) => (c === '\\' ? '\\\\' : controlInValue(c, '\\t')));
}

/**
 * The delimiter {@link formatLeef} writes `event` with: a tab for LEEF 1.0; for LEEF 2.0 the one asked for (default
 * `^`) unless a key or escaped value contains it, else a tab.
 *
 * @throws {EventFormatError} when the delimiter asked for cannot be one.
 */
export function resolveLeefDelimiter(event: LeefEventInput): string {
  if (event.version === '1.0') return '\t';
  const wanted = event.delimiter ?? DEFAULT_LEEF_DELIMITER;
  const problem = leefDelimiterProblem(wanted);
  if (problem) throw new EventFormatError('leef', `delimiter ${problem}`);
  if (wanted === '\t') return wanted;
  for (const [key, value] of Object.entries(event.attributes)) {
    if (key.includes(wanted) || escapeLeefValue(value).includes(wanted)) return '\t';
  }
  return wanted;
}

/**
 * One LEEF line (no syslog header, no line terminator) for `event`.
 *
 * @example
 * ```ts
 * formatLeef({ version: '2.0', vendor: 'threatlib', product: 'threatlib', productVersion: '1.0',
 *   eventId: 'ThreatAlert', attributes: { sev: '8', title: 'a^b' } });
 * // 'LEEF:2.0|threatlib|threatlib|1.0|ThreatAlert|x09|sev=8\ttitle=a^b' (a value holds "^", so a tab delimits)
 * ```
 *
 * @throws {EventFormatError} when the version is not 1.0 or 2.0, a header field has a line break or another control
 *   or separator character, a key is empty or has whitespace, a control character, `=`, `|` or `\`, or the
 *   delimiter asked for cannot be one.
 */
export function formatLeef(event: LeefEventInput): string {
  if (!(LEEF_VERSIONS as readonly string[]).includes(event.version)) {
    throw new EventFormatError('leef', `version must be 1.0 or 2.0, got ${JSON.stringify(event.version)}`);
  }
  const header = [
    ['vendor', event.vendor],
    ['product', event.product],
    ['productVersion', event.productVersion],
    ['eventId', event.eventId],
  ] as const;
  const fields = header.map(([field, value]) => {
    checkHeaderField('leef', field, value);
    return escapeLeefHeader(value);
  });
  for (const key of Object.keys(event.attributes)) {
    if (!LEEF_KEY.test(key)) {
      throw new EventFormatError(
        'leef',
        `attribute key ${quoteForDisplay(key)} must be non-empty, without whitespace, control characters, "=", "|" or "\\"`,
      );
    }
  }
  const delimiter = resolveLeefDelimiter(event);
  const attributes = Object.entries(event.attributes)
    .map(([key, value]) => `${key}=${escapeLeefValue(value)}`)
    .join(delimiter);
  const delimiterField = event.version === '2.0' ? `${leefDelimiterField(delimiter)}|` : '';
  return `LEEF:${event.version}|${fields.join('|')}|${delimiterField}${attributes}`;
}
