import { accepted, type CheckResult, refused } from './check-result.js';
import { checkDomain } from './domain.js';
import { checkIpv4, looksLikeIpv4 } from './ipv4.js';
import { checkIpv6 } from './ipv6.js';

const SUPPORTED_SCHEMES: readonly string[] = ['http', 'https', 'ftp'];
const MAX_PORT = 65535;

// No dots in the scheme and no digit right after the colon: otherwise `evil.com:8080/x` and `localhost:8080/x`
// would read as schemes. No scheme that threat data carries has a dot in it.
const SCHEME = /^([a-z][a-z0-9+-]*):(?!\d)/i;
// A host (or [IPv6]), an optional port, then a path or query: a URL written without its scheme.
const SCHEMELESS = /^(\[[^\]/?#]*\]|[^/?#:@\\[\]]+)(?::(\d*))?([/?].*)?$/s;
// Where the authority ends for RFC 3986 (section 3.2). WHATWG also ends it at `\` in http(s) and ftp URLs, which is
// why a `\` before this point is refused (see describeAmbiguousAuthority).
const AUTHORITY_END = /[/?#]/;
// Delimiters that, percent-encoded in the user info, move the host for a parser that decodes before it splits.
const ENCODED_DELIMITER = /%(2f|3f|23|40|5c)/i;

/**
 * Whether `text` looks like it was meant as a URL: it has a scheme (any scheme, so that `javascript:` gets a reason),
 * contains `://`, or is a host followed by a path, query or port.
 */
export function looksLikeUrl(text: string): boolean {
  if (SCHEME.test(text) || text.includes('://')) return true;
  const schemeless = SCHEMELESS.exec(text);
  return schemeless !== null && (schemeless[3] !== undefined || (schemeless[2] ?? '') !== '');
}

/**
 * Checks that `text` is an http, https or ftp URL whose host is a valid domain, IPv4 or IPv6 address, and returns
 * its WHATWG serialisation (lower-case scheme and host, punycode, default port dropped, dot segments resolved) with
 * the host's trailing dot removed. A URL without a scheme but with a path or query gets `http://`.
 */
export function checkUrl(text: string): CheckResult {
  const scheme = SCHEME.exec(text);
  let absolute: string;
  let afterScheme: string;
  if (scheme) {
    const name = (scheme[1] ?? '').toLowerCase();
    // `C:\Users\…` parses as scheme `c`; file paths turn up in indicator lists, and "scheme c" would only confuse.
    if (name.length === 1) return refused('looks like a Windows file path, not a URL');
    if (!SUPPORTED_SCHEMES.includes(name)) {
      return refused(`scheme "${name}" is not supported (only ${SUPPORTED_SCHEMES.join(', ')})`);
    }
    afterScheme = text.slice(scheme[0].length);
    if (!afterScheme.startsWith('//')) return refused(`expected "//" after "${name}:"`);
    afterScheme = afterScheme.slice(2);
    absolute = text;
  } else if (text.includes('://')) {
    return refused('has no valid scheme name before "://"');
  } else {
    const schemeless = SCHEMELESS.exec(text);
    if (schemeless === null) return refused('has no scheme (http, https or ftp) and is not a host followed by a path');
    const [, host = '', port = '', path] = schemeless;
    if (path === undefined) {
      // `host:port` alone is how raw TCP endpoints (C2 servers) are reported; guessing http:// would be wrong.
      return port === ''
        ? refused('has no scheme (http, https or ftp) and no path after the host')
        : refused(
            `is a host and port without a scheme or path; the protocol is unknown (write http://${host}:${port}/ if that is meant)`,
          );
    }
    afterScheme = text;
    absolute = `http://${text}`;
  }

  const authorityEnd = afterScheme.search(AUTHORITY_END);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const ambiguity = describeAmbiguousAuthority(authority);
  if (ambiguity !== undefined) return refused(ambiguity);
  const at = authority.indexOf('@');
  const split = splitHostAndPort(authority.slice(at + 1));
  if (!split.ok) return refused(split.reason);
  const { host, port } = split;
  if (host === '') return refused('has no host');
  if (port !== '') {
    if (!/^\d+$/.test(port)) return refused(`port "${port}" is not a number`);
    if (Number(port) > MAX_PORT) return refused(`port ${port} is out of range (0-${MAX_PORT})`);
  }

  const hostCheck = checkHost(host);
  if (!hostCheck.ok) return refused(`host "${host}": ${hostCheck.reason}`);

  let url: URL;
  try {
    url = new URL(absolute);
  } catch {
    return refused('is not a valid URL');
  }
  // WHATWG keeps a domain's trailing dot (`evil.com.`) while the domain checker drops it; use the checked form so a
  // URL's host and the same domain given alone compare equal.
  if (hostCheck.type === 'domain' && url.hostname !== hostCheck.value) url.hostname = hostCheck.value;
  // The checks above read the authority as RFC 3986 does; the serialisation is WHATWG's. Should the two ever
  // disagree on the host (a case the checks above missed), the URL means different hosts to different software.
  if (!sameHost(hostCheck, url.hostname)) {
    return refused(
      `WHATWG URL parsers read the host as "${url.hostname}" but RFC 3986 parsers as "${host}"; the host is ambiguous`,
    );
  }
  return accepted('url', url.href);
}

/**
 * Why an authority (the text between `//` and the first `/`, `?` or `#`) names different hosts to different URL
 * parsers, or undefined when it does not. WHATWG parsers (browsers, Node's URL) end the authority at `\` too and
 * take the host after the last `@`; RFC 3986 parsers (curl, Python's urlsplit, proxies, most SIEM parsers) keep `\`
 * in the authority and, since user info cannot hold `@`, split at the first one or fail.
 */
function describeAmbiguousAuthority(authority: string): string | undefined {
  if (authority.includes('\\')) {
    return (
      'has a backslash in its authority (before the path): WHATWG URL parsers (browsers) read it as "/", ' +
      'RFC 3986 parsers (curl, proxies, SIEM parsers) as part of the user info or host, so the host is ambiguous'
    );
  }
  const at = authority.indexOf('@');
  if (at === -1) return undefined;
  if (authority.indexOf('@', at + 1) !== -1) {
    return (
      'has more than one "@" in its authority: some parsers take the host after the first, others after the last, ' +
      'so the host is ambiguous'
    );
  }
  const encoded = ENCODED_DELIMITER.exec(authority.slice(0, at));
  if (encoded) {
    const delimiter = decodeURIComponent(encoded[0]);
    return (
      `has a percent-encoded "${delimiter}" in the user info (${encoded[0]}): a parser that decodes before it ` +
      'splits finds another host, so the host is ambiguous'
    );
  }
  return undefined;
}

/** Whether the checked host and the host WHATWG serialised are the same host. */
function sameHost(checked: Extract<CheckResult, { ok: true }>, whatwgHost: string): boolean {
  if (checked.type !== 'ipv6') return checked.value === whatwgHost;
  // WHATWG writes IPv4-mapped addresses in hex (`[::ffff:7f00:1]`), RFC 5952 with a dotted tail.
  if (!whatwgHost.startsWith('[')) return false;
  const whatwg = checkIpv6(whatwgHost);
  return whatwg.ok && whatwg.value === checked.value;
}

type HostAndPort = { ok: true; host: string; port: string } | { ok: false; reason: string };

function splitHostAndPort(hostAndPort: string): HostAndPort {
  if (hostAndPort.startsWith('[')) {
    const close = hostAndPort.indexOf(']');
    if (close === -1) return { ok: false, reason: 'has an unclosed "[" in the host' };
    const rest = hostAndPort.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return { ok: false, reason: `unexpected "${rest}" after the IPv6 host` };
    return { ok: true, host: hostAndPort.slice(0, close + 1), port: rest.slice(1) };
  }
  const colon = hostAndPort.indexOf(':');
  if (colon === -1) return { ok: true, host: hostAndPort, port: '' };
  const port = hostAndPort.slice(colon + 1);
  if (port.includes(':') && /^[0-9a-f:.]+$/i.test(hostAndPort)) {
    return { ok: false, reason: 'an IPv6 host must be written in brackets, like http://[2001:db8::1]/' };
  }
  return { ok: true, host: hostAndPort.slice(0, colon), port };
}

function checkHost(rawHost: string): CheckResult {
  // Bracketed hosts are IPv6 literals, which the URL parser does not percent-decode.
  if (rawHost.startsWith('[')) return checkIpv6(rawHost);
  let host: string;
  try {
    // The URL parser percent-decodes hosts (`%65vil.com` is `evil.com`); decode first so the checks see the same.
    host = decodeURIComponent(rawHost);
  } catch {
    return refused('has invalid percent-encoding');
  }
  if (looksLikeIpv4(host)) {
    // Alone, `192.0.2.1.` is an address at the end of a sentence; as a host, some parsers read it as the address
    // and others as a name.
    if (host.endsWith('.')) return refused('is an IPv4 address with a trailing dot, which some parsers read as a name');
    return checkIpv4(host);
  }
  return checkDomain(host);
}
