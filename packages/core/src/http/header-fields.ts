import * as z from 'zod';

/** The longest header name taken. */
const MAX_HEADER_NAME_CHARS = 256;
/** The longest header value taken (Node.js servers take 16 KiB of headers in all by default). */
const MAX_HEADER_VALUE_CHARS = 8192;

/** RFC 9110 section 5.6.2: `token = 1*tchar`, the only characters a field name may hold. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The characters that go in the shown part of a refused header name. */
const MAX_QUOTED_CHARS = 60;

/** What the first character of `name` that is no token character is, in words. */
function firstNonToken(name: string): string {
  for (const char of name) {
    if (TOKEN.test(char)) continue;
    if (char === '\r' || char === '\n') return 'a line break';
    if (char === ' ') return 'a space';
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) return 'a control character';
    if (code > 0x7e) return 'a character outside ASCII';
    return JSON.stringify(char);
  }
  return 'no character at all';
}

/**
 * Why `name` cannot be sent as an HTTP header name, or undefined when it can: a name is an RFC 9110 token of 1 to 256
 * characters (letters, digits and ``!#$%&'*+-.^_`|~``), as undici checks before it sends anything. The message quotes
 * the name (escaped, so that a line break in it shows as `\r\n`): a header name is no secret, its value may be.
 *
 * @example
 * ```ts
 * headerNameProblem('x-tenant'); // undefined
 * headerNameProblem('x tenant'); // 'expected a header name (...), got "x tenant" (it has a space)'
 * ```
 */
export function headerNameProblem(name: string): string | undefined {
  if (name.length <= MAX_HEADER_NAME_CHARS && TOKEN.test(name)) return undefined;
  const quoted = JSON.stringify(name.length > MAX_QUOTED_CHARS ? `${name.slice(0, MAX_QUOTED_CHARS)}…` : name);
  const what =
    name.length === 0
      ? 'it is empty'
      : name.length > MAX_HEADER_NAME_CHARS
        ? `it has ${name.length} characters, at most ${MAX_HEADER_NAME_CHARS} are taken`
        : `it has ${firstNonToken(name)}`;
  return `expected a header name (an RFC 9110 token: letters, digits and !#$%&'*+-.^_\`|~), got ${quoted} (${what})`;
}

/**
 * Why `value` cannot be sent as an HTTP header value, or undefined when it can. A value may hold tab, the visible
 * ASCII characters, space, and the octets 0x80 to 0xFF (RFC 9110 section 5.5 `field-content`, as undici checks it);
 * anything else (a line break, NUL, another control character, a character above U+00FF) is refused, and so is a value
 * of more than 8192 characters. The message says what was wrong and where, never what the value holds: a header value
 * is often a credential.
 *
 * @example
 * ```ts
 * headerValueProblem('Bearer abc'); // undefined
 * headerValueProblem('a\r\nInjected: 1'); // 'a header value cannot hold a line break (CR or LF): character 2 is one'
 * ```
 */
export function headerValueProblem(value: string): string | undefined {
  if (value.length > MAX_HEADER_VALUE_CHARS) {
    return `a header value has at most ${MAX_HEADER_VALUE_CHARS} characters; this one has ${value.length}`;
  }
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff)) continue;
    const what =
      code === 0x0d || code === 0x0a
        ? 'a line break (CR or LF)'
        : code === 0
          ? 'a NUL character'
          : code < 0x20 || code === 0x7f
            ? 'a control character (tab is the only one taken)'
            : 'a character above U+00FF (header values are Latin-1: percent-encode it)';
    return `a header value cannot hold ${what}: character ${i + 1} is one`;
  }
  return undefined;
}

/**
 * A map of header names to values that can be sent as they are: every name an RFC 9110 token
 * ({@link headerNameProblem}) and every value free of line breaks and control characters ({@link headerValueProblem}).
 * A bad name is reported at the map's path with the name quoted; a bad value at its header's path, without the value.
 *
 * @example
 * ```ts
 * const Options = z.strictObject({ headers: headersSchema.default({}) });
 * ```
 */
export const headersSchema = z.record(z.string(), z.string()).superRefine((headers, context) => {
  for (const [name, value] of Object.entries(headers)) {
    const nameProblem = headerNameProblem(name);
    if (nameProblem !== undefined) {
      context.addIssue({ code: 'custom', path: [], message: nameProblem });
      continue;
    }
    const valueProblem = typeof value === 'string' ? headerValueProblem(value) : undefined;
    if (valueProblem !== undefined) context.addIssue({ code: 'custom', path: [name], message: valueProblem });
  }
});
