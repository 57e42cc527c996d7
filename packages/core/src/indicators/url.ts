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
// Where the authority ends; WHATWG treats `\` like `/` in http(s) and ftp URLs.
const AUTHORITY_END = /[/?#\\]/;

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
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  const split = splitHostAndPort(hostAndPort);
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
  return accepted('url', url.href);
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
  if (looksLikeIpv4(host)) return checkIpv4(host);
  return checkDomain(host);
}
