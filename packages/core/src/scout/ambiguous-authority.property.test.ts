import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import * as fastUri from 'fast-uri';
import ipaddr from 'ipaddr.js';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { EXAMPLE_BLOCKLIST, quickStartClient } from './quick-start-client.test-suite.js';

// Issue 12, acceptance: URLs built from a grammar of ambiguous authorities never get a `clean` verdict from a list
// unless an independent RFC 3986 parser reads the same host as we do. fast-uri (fastify's URI library) splits the
// authority as RFC 3986 section 3.2 says: it ends at the first "/", "?" or "#" (never at "\"), user info is what
// precedes the first "@", and the host is not decoded beyond unreserved characters.

// The part WHATWG parsers may see as the host: addresses the built-in special-use warninglist covers, and a name and
// an address on the allowlist below.
const COVERED_HOSTS = [
  '127.0.0.1',
  '10.0.0.1',
  '169.254.169.254',
  '192.168.1.1',
  '0.0.0.0',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:10.1.2.3]',
  '[fe80::1]',
  '[fc00::1]',
  'trusted.example.org',
  '192.0.2.10',
];
// Where an attacker would rather the request went.
const OTHER_HOSTS = ['evil.com', 'EVIL.com', '45.148.10.240', '[2001:db8::66]', 'a.evil.com:8443'];
const DELIMITERS = [
  '\\',
  '\\\\',
  '@',
  '%2F',
  '%2f',
  '%40',
  '%5C',
  '%5c',
  '%3F',
  '%23',
  '%3A',
  '%2E',
  '%25',
  '%09',
  '%00',
  '\t',
  '\n',
  '\r',
  ':',
  ':80',
  ':8443',
  '/',
  '?',
  '#',
  ';',
  '.',
  '[',
  ']',
  'user',
  'user:pass',
  // Full-width forms that IDNA maps to "\\", "@", "." and ".".
  '\uFF3C',
  '\uFF20',
  '\u3002',
  '\uFF0E',
];

// An allowlist (verdict clean) holding trusted.example.org and 192.0.2.10.
const ALLOWLIST = fileURLToPath(new URL('./__fixtures__/allowlist.txt', import.meta.url));

const part = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...DELIMITERS) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_HOSTS) },
  { weight: 1, arbitrary: fc.constantFrom(...COVERED_HOSTS) },
);
const authority = fc
  .tuple(fc.array(part, { maxLength: 3 }), fc.constantFrom(...COVERED_HOSTS), fc.array(part, { maxLength: 4 }))
  .map(([before, covered, after]) => [...before, covered, ...after].join(''));
const url = fc
  .tuple(
    fc.constantFrom('http', 'https', 'ftp', 'HTTP'),
    authority,
    fc.constantFrom('', '/', '/x', '/a\\b', '?q=1', '#f', '/p@evil.com'),
  )
  .map(([scheme, auth, rest]) => `${scheme}://${auth}${rest}`);

const client = quickStartClient({
  lists: [
    { name: 'example', file: EXAMPLE_BLOCKLIST, format: 'plain', verdict: 'malicious' },
    { name: 'allow', file: ALLOWLIST, format: 'plain', verdict: 'clean' },
  ],
});
afterAll(() => client.stop());

/**
 * A host as a comparable string: lower case, no brackets, IPv6 (IPv4-mapped included) in one canonical form, a
 * name without its root dot (`evil.com.` is the absolute spelling of `evil.com`, RFC 1034 section 3.1; an IPv4
 * address with a trailing dot is not so simple, and is refused).
 */
function comparable(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/s, '$1');
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare).toNormalizedString();
  return /[a-z]\.$/.test(bare) ? bare.slice(0, -1) : bare;
}

/**
 * The host an RFC 3986 parser reads, as a resolver would look it up. fast-uri leaves a non-ASCII name of a scheme it
 * has no handler for (ftp) percent-encoded; RFC 3986 section 3.2.2 says such a name is IDNA-encoded before lookup,
 * and IDNA (RFC 3490 section 3.1) takes U+3002, U+FF0E and U+FF61 as label separators. Other non-ASCII is left as
 * it is, so it compares unequal.
 */
function rfc3986Host(input: string): string | undefined {
  const host = fastUri.parse(input.trim()).host;
  if (host === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(host);
  } catch {
    return comparable(host);
  }
  return comparable(decoded.replace(/[\u3002\uFF0E\uFF61]/g, '.'));
}

describe('URLs with ambiguous authorities', () => {
  it('the lists clear what the grammar relies on', async () => {
    for (const host of ['127.0.0.1', '::ffff:10.1.2.3', 'trusted.example.org', '192.0.2.10']) {
      expect((await client.correlate(host)).verdict, host).toBe('clean');
    }
  });

  it('get a clean verdict only when an RFC 3986 parser reads the same host', async () => {
    let cleared = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(url, async (input) => {
        let result: Awaited<ReturnType<typeof client.correlate>>;
        try {
          result = await client.correlate(input);
        } catch (error) {
          if (!InvalidIndicatorError.isInstance(error)) throw error;
          refused += 1;
          return;
        }
        if (result.verdict !== 'clean') return;
        cleared += 1;
        const ours = comparable(new URL(result.indicator).hostname);
        const rfc3986 = rfc3986Host(input);
        expect({ input, host: ours }).toEqual({ input, host: rfc3986 });
      }),
      {
        numRuns: 1500,
        examples: [
          ['http://127.0.0.1\\@evil.com/'],
          ['http://[::ffff:127.0.0.1]\\@evil.com/'],
          ['http://trusted.example.org\\@evil.com/'],
          ['http://evil.com@x@127.0.0.1/'],
        ],
      },
    );
    // Not vacuous: plenty of generated URLs are cleared (their host is unambiguous) and plenty are refused.
    expect(cleared).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });
});
