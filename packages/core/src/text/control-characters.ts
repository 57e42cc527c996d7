/**
 * Every character that can end, split or hide part of a record in a line-oriented format or a log line: the C0
 * controls (NUL, TAB, LF, VT, FF, CR...), DEL, the C1 controls (NEL, U+0085, among them) and the Unicode LINE
 * SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029). Receivers end a record at LF, CR, NUL or NEL; Unicode-aware
 * readers also at VT, FF, U+2028 and U+2029.
 */
export const CONTROL_OR_SEPARATOR = /[\p{Cc}\u2028\u2029]/u;

const CONTROL_OR_SEPARATOR_ALL = /[\p{Cc}\u2028\u2029]/gu;

/** What JSON.stringify leaves raw that a line reader may split at: DEL, the C1 controls, U+2028 and U+2029. */
const JSON_RAW_BREAKS = /[\u007f-\u009f\u2028\u2029]/gu;

/** `U+000A` for a line feed: how messages name a character. */
export function codePointName(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `\u000a`-style JSON escape of one UTF-16 code unit. */
function jsonEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * JSON text (as `JSON.stringify` writes it) with the characters it leaves raw and that line readers may split at
 * (DEL, the C1 controls with NEL, U+2028, U+2029) written as `\uXXXX` escapes: the same JSON value, on one line for
 * every reader. (`JSON.stringify` already escapes the C0 controls; outside strings JSON has none of these.)
 *
 * @example
 * ```ts
 * lineSafeJson(JSON.stringify({ title: 'a\u2028b' })); // '{"title":"a\\u2028b"}'
 * ```
 */
export function lineSafeJson(json: string): string {
  return json.replace(JSON_RAW_BREAKS, jsonEscape);
}

/**
 * `text` as an error message or a log line shows a value it refused: JSON-quoted, cut to `maxChars` characters
 * (ending `…`), with every control and separator character escaped (`\n`, `\u0000`, `\u0085`, `\u2028`), so the
 * message is one line and shows exactly which characters were there.
 *
 * @example
 * ```ts
 * quoteForDisplay('198.51.100.7\n0.0.0.0/0'); // '"198.51.100.7\\n0.0.0.0/0"'
 * ```
 */
export function quoteForDisplay(text: string, maxChars = 100): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return lineSafeJson(JSON.stringify(cut));
}

/**
 * `text` with every control and separator character written as a visible escape: `\n`, `\r`, `\t` for those three,
 * `\uXXXX` for the others (a backslash stays as it is). For one-line renderings meant for people (a log line as
 * text), where JSON quoting would be too much.
 *
 * @example
 * ```ts
 * escapeControlCharacters('a\nb\u0000c'); // 'a\\nb\\u0000c'
 * ```
 */
export function escapeControlCharacters(text: string): string {
  if (!CONTROL_OR_SEPARATOR.test(text)) return text;
  return text.replace(CONTROL_OR_SEPARATOR_ALL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return jsonEscape(c);
  });
}
