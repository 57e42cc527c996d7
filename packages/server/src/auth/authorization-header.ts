/** An `Authorization` header read as RFC 9110 §11.4 writes it, or what is wrong with it. */
export type AuthorizationHeader =
  | { ok: true /** Lower-cased. */; scheme: string; credentials: string }
  | { ok: false /** Says what is wrong without quoting the header. */; reason: string };

// RFC 9110: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]; auth-scheme = token. The credentials the
// server accepts (Bearer and Basic) are a token68, which holds no whitespace. Only SP separates: a tab is not
// allowed by the grammar, and accepting it after a space but not alone (as a trim would) is what a review found.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const WHITESPACE = /[\s]/;

/**
 * Splits an `Authorization` header into its scheme (lower-cased: schemes are case-insensitive) and credentials:
 * the scheme, one or more spaces, and credentials without whitespace. Node has already trimmed the value's ends.
 */
export function parseAuthorization(header: string | undefined): AuthorizationHeader {
  if (!header) return { ok: false, reason: 'missing credentials: send an Authorization header' };
  const space = header.indexOf(' ');
  const scheme = space === -1 ? header : header.slice(0, space);
  if (!TOKEN.test(scheme)) {
    return {
      ok: false,
      reason: WHITESPACE.test(scheme)
        ? 'malformed Authorization header: separate the scheme and the credentials with one or more spaces (RFC 9110 §11.4), as in "Bearer <token>"'
        : 'malformed Authorization header: expected a scheme, one or more spaces and the credentials, as in "Bearer <token>"',
    };
  }
  if (space === -1) return { ok: false, reason: 'missing credentials after the scheme of the Authorization header' };
  let start = space + 1;
  while (header.charCodeAt(start) === 0x20) start++;
  const credentials = header.slice(start);
  if (credentials === '' || WHITESPACE.test(credentials)) {
    return {
      ok: false,
      reason:
        'malformed Authorization header: the credentials follow the scheme after one or more spaces and hold no whitespace (RFC 9110 §11.4)',
    };
  }
  return { ok: true, scheme: scheme.toLowerCase(), credentials };
}
