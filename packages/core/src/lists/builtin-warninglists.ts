import { compileMispWarninglist } from './misp-warninglist.js';
import type { Warninglist } from './warninglist.js';

// Addresses that never identify a host on the internet, so no feed can say anything useful about them. The
// documentation ranges (TEST-NET-1/2/3: 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, RFC 5737; and
// 2001:db8::/32, RFC 3849) are deliberately absent: examples, tests and the quick start use them as stand-ins for
// malicious addresses, and answering them `clean` here would hide exactly what those examples demonstrate.
//
// IPv4-mapped IPv6 addresses (::ffff:10.1.2.3) need no entries of their own: the matcher looks them up as the IPv4
// address they carry, so the IPv4 ranges below cover ::ffff:10.0.0.0/104, ::ffff:127.0.0.0/104 and the rest.
const SPECIAL_USE_IPV4 = {
  name: 'Special-use IPv4 addresses (threatlib built-in)',
  description: 'IPv4 ranges reserved for private, local or special use (IANA special-purpose registry, RFC 6890)',
  version: 1,
  type: 'cidr',
  matching_attributes: ['ip-src', 'ip-dst', 'url'],
  list: {
    '0.0.0.0/8': '"this network", RFC 1122',
    '10.0.0.0/8': 'private network, RFC 1918',
    '100.64.0.0/10': 'shared address space for carrier-grade NAT, RFC 6598',
    '127.0.0.0/8': 'loopback, RFC 1122',
    '169.254.0.0/16': 'link-local, RFC 3927',
    '172.16.0.0/12': 'private network, RFC 1918',
    '192.168.0.0/16': 'private network, RFC 1918',
    '198.18.0.0/15': 'network benchmarking, RFC 2544',
    '224.0.0.0/4': 'multicast, RFC 5771',
    '240.0.0.0/4': 'reserved for future use, RFC 1112',
    '255.255.255.255/32': 'limited broadcast, RFC 919',
  },
};

const SPECIAL_USE_IPV6 = {
  name: 'Special-use IPv6 addresses (threatlib built-in)',
  description: 'IPv6 addresses and ranges reserved for local or special use (RFC 4291, RFC 4193)',
  version: 1,
  type: 'cidr',
  matching_attributes: ['ip-src', 'ip-dst', 'url'],
  list: {
    '::/128': 'unspecified address, RFC 4291',
    '::1/128': 'loopback, RFC 4291',
    'fe80::/10': 'link-local unicast, RFC 4291',
    'fc00::/7': 'unique local address, RFC 4193',
    'ff00::/8': 'multicast, RFC 4291',
  },
};

// The hashes of zero bytes turn up in every sandbox report and match every empty file anywhere.
const EMPTY_FILE_HASHES = {
  name: 'Hashes of the empty file (threatlib built-in)',
  description: 'MD5, SHA-1 and SHA-256 of a file with no content',
  version: 1,
  type: 'string',
  matching_attributes: ['md5', 'sha1', 'sha256'],
  list: {
    d41d8cd98f00b204e9800998ecf8427e: 'MD5 of the empty file',
    da39a3ee5e6b4b0d3255bfef95601890afd80709: 'SHA-1 of the empty file',
    e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855: 'SHA-256 of the empty file',
  },
};

/**
 * The warninglists threatlib applies unless told not to: special-use IPv4 and IPv6 ranges (private, loopback,
 * link-local, CGNAT, multicast, reserved, broadcast, benchmarking, unique local) and the hashes of the empty file.
 * Each entry's evidence names its RFC. Documentation ranges (192.0.2.0/24 and friends) are not included.
 *
 * @example
 * ```ts
 * const set = new WarninglistSet(builtinWarninglists());
 * set.match(parseIndicator('10.1.2.3'))?.reason;
 * // 'on warninglist "Special-use IPv4 addresses (threatlib built-in)" (10.0.0.0/8: private network, RFC 1918)'
 * ```
 */
export function builtinWarninglists(): Warninglist[] {
  return [SPECIAL_USE_IPV4, SPECIAL_USE_IPV6, EMPTY_FILE_HASHES].map((list) =>
    compileMispWarninglist(list, 'built-in'),
  );
}
