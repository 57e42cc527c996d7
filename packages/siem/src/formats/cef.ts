/*
 * ArcSight Common Event Format (CEF), as defined by "Micro Focus Security ArcSight Common Event Format, Implementing
 * ArcSight CEF, Version 25" (Micro Focus, now OpenText; the same rules since HPE's Version 23 of 2016), sections
 * "CEF Header" ... "Character Encoding", and its Extension Dictionary:
 *
 *   CEF:Version|Device Vendor|Device Product|Device Version|Device Event Class ID|Name|Severity|[Extension]
 *
 * - The whole message is UTF-8.
 * - Header (prefix) fields: a pipe is written `\|` and a backslash `\\`; an equal sign needs no escaping there.
 * - Extension: `key=value` pairs separated by single spaces; a value may contain spaces. In a value, `=` is written
 *   `\=` and a backslash `\\`; a pipe needs no escaping. Line breaks are written `\n` (and `\r`), and "multiple lines
 *   are only allowed in the value part of the extensions": a header field can have none.
 * - Version is `0` (CEF 0.1) or `1` (CEF 1.x). Severity is an integer 0-10 (0-3 Low, 4-6 Medium, 7-8 High, 9-10
 *   Very-High) or one of Unknown, Low, Medium, High, Very-High.
 * - Extension keys are the dictionary's names (`src`, `dhost`, `msg`, `cs1`, `cs1Label`...) or custom ones, which
 *   consist of letters and digits only.
 *
 * CEF has no escape for the other control characters, and receivers end a record at NUL, NEL or any line break. So
 * (see ./field-characters.ts): a header field with any control or line-separator character is refused; in a value,
 * VT, FF, NEL, U+2028 and U+2029 are written `\n` like LF, a tab a space, every other control character U+FFFD. The
 * line this formatter writes never holds a raw control or separator character.
 */

import { EventFormatError } from './event-format-error.js';
import { checkHeaderField, controlInValue } from './field-characters.js';

/** A CEF event: the seven header fields and the extension's pairs (in the order given). */
export interface CefEvent {
  /** `0` (CEF 0.1, what most receivers expect) or `1` (CEF 1.x). */
  version: 0 | 1;
  deviceVendor: string;
  deviceProduct: string;
  deviceVersion: string;
  /** The signature id: what kind of event this is. */
  deviceEventClassId: string;
  /** A human-readable name of the event; one line. */
  name: string;
  /** `0`..`10` or `Unknown`, `Low`, `Medium`, `High`, `Very-High`. */
  severity: string;
  /** Key to value. Keys are letters and digits; values any text. */
  extension: Record<string, string>;
}

/** The severities CEF allows as words. */
export const CEF_SEVERITY_WORDS = ['Unknown', 'Low', 'Medium', 'High', 'Very-High'] as const;

/** A valid extension key: letters and digits. */
const CEF_KEY = /^[A-Za-z0-9]+$/;

/** Whether `severity` is one CEF allows: an integer 0..10 (no sign, no leading zero) or a severity word. */
export function isCefSeverity(severity: string): boolean {
  return /^(?:[0-9]|10)$/.test(severity) || (CEF_SEVERITY_WORDS as readonly string[]).includes(severity);
}

/** A header field with `\` and `|` escaped. */
function escapeCefHeader(value: string): string {
  return value.replace(/[\\|]/g, (c) => `\\${c}`);
}

/** What an extension value escapes or replaces: `\`, `=`, and every control and separator character. */
const CEF_VALUE_SPECIAL = /[\\=\p{Cc}\u2028\u2029]/gu;

/** An extension value with `\` and `=` escaped, line breaks written `\n` (`\r`), other controls replaced. */
function escapeCefValue(value: string): string {
  return value.replace(CEF_VALUE_SPECIAL, (c) => (c === '\\' || c === '=' ? `\\${c}` : controlInValue(c, ' ')));
}

/**
 * One CEF line (no syslog header, no line terminator) for `event`.
 *
 * @example
 * ```ts
 * formatCef({ version: 0, deviceVendor: 'threatlib', deviceProduct: 'threatlib', deviceVersion: '1.0',
 *   deviceEventClassId: 'threat-alert', name: 'Phishing | domain', severity: '8',
 *   extension: { dhost: 'evil.example', msg: 'a=b\nsecond line' } });
 * // 'CEF:0|threatlib|threatlib|1.0|threat-alert|Phishing \| domain|8|dhost=evil.example msg=a\=b\nsecond line'
 * ```
 *
 * @throws {EventFormatError} when a header field has a line break or another control or separator character, the
 *   severity or version is not one CEF allows, or an extension key is not letters and digits.
 */
export function formatCef(event: CefEvent): string {
  if (event.version !== 0 && event.version !== 1) {
    throw new EventFormatError('cef', `version must be 0 or 1, got ${JSON.stringify(event.version)}`);
  }
  const severity = String(event.severity);
  if (!isCefSeverity(severity)) {
    throw new EventFormatError(
      'cef',
      `severity must be an integer 0 to 10 or one of ${CEF_SEVERITY_WORDS.join(', ')}, got ${JSON.stringify(severity)}`,
    );
  }
  const header = [
    ['deviceVendor', event.deviceVendor],
    ['deviceProduct', event.deviceProduct],
    ['deviceVersion', event.deviceVersion],
    ['deviceEventClassId', event.deviceEventClassId],
    ['name', event.name],
  ] as const;
  const fields = header.map(([field, value]) => {
    checkHeaderField('cef', field, value);
    return escapeCefHeader(value);
  });
  const pairs = Object.entries(event.extension).map(([key, value]) => {
    if (!CEF_KEY.test(key)) {
      throw new EventFormatError('cef', `extension key ${JSON.stringify(key)} must be letters and digits only`);
    }
    return `${key}=${escapeCefValue(value)}`;
  });
  return `CEF:${event.version}|${fields.join('|')}|${severity}|${pairs.join(' ')}`;
}
