import ipaddr from 'ipaddr.js';
import { accepted, type CheckResult, refused } from './check-result.js';
import { checkDottedQuad } from './ipv4.js';

const IPV6_SHAPE = /^\[?[0-9a-f:.]*(?:%[^\]]*)?\]?$/i;
const IPV6_CIDR_SHAPE = /^[0-9a-f:.]*\/\d+$/i;

/**
 * Whether `text` has the shape of an IPv6 address: hex digits, dots and at least two colons, optionally in brackets,
 * with a zone id or as a CIDR range (the last two are refused by {@link checkIpv6}, with a reason).
 */
export function looksLikeIpv6(text: string): boolean {
  return countColons(text) >= 2 && (IPV6_SHAPE.test(text) || IPV6_CIDR_SHAPE.test(text));
}

/**
 * Checks that `text` is an IPv6 address, optionally in brackets, and returns its RFC 5952 text: lower case, the
 * longest run of zero groups compressed, IPv4-mapped addresses as `::ffff:192.0.2.1`.
 */
export function checkIpv6(text: string): CheckResult {
  let address = text;
  if (address.startsWith('[') || address.endsWith(']')) {
    if (!(address.startsWith('[') && address.endsWith(']'))) return refused('has an unbalanced bracket');
    address = address.slice(1, -1);
  }
  if (IPV6_CIDR_SHAPE.test(address)) return refused('is a CIDR range; give a single address');
  const zone = address.indexOf('%');
  if (zone !== -1) {
    return refused(
      `has a zone id ("${address.slice(zone)}"), which names an interface on one host and is not meaningful as an ` +
        'indicator',
    );
  }
  if (!/^[0-9a-f:.]+$/i.test(address) || countColons(address) < 2) {
    return refused('expected colon-separated groups of hex digits, like 2001:db8::1');
  }
  const hexOnly = replaceEmbeddedIpv4(address);
  if (!hexOnly.ok) return hexOnly;
  const shapeProblem = describeShapeProblem(hexOnly.value);
  if (shapeProblem !== undefined) return refused(shapeProblem);
  if (!ipaddr.IPv6.isValid(hexOnly.value)) return refused('is not a valid IPv6 address');
  const parsed = ipaddr.IPv6.parse(hexOnly.value);
  // ipaddr.js writes IPv4-mapped addresses in hex (`::ffff:102:304`); RFC 5952 section 5 asks for the dotted tail.
  if (parsed.isIPv4MappedAddress()) return accepted('ipv6', `::ffff:${parsed.toIPv4Address().toString()}`);
  return accepted('ipv6', parsed.toRFC5952String());
}

/**
 * Rewrites a dotted IPv4 tail (`::ffff:1.2.3.4`) as two hex groups after checking it strictly. ipaddr.js would
 * accept `0x7f.0.0.1` there, and it turns `::1.2.3.4` (IPv4-compatible) into `::ffff:1.2.3.4` (IPv4-mapped),
 * which is a different address; converting first keeps both mistakes out.
 */
function replaceEmbeddedIpv4(address: string): CheckResult {
  if (!address.includes('.')) return accepted('ipv6', address);
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  const ipv4 = checkDottedQuad(tail);
  if (!ipv4.ok) return refused(`embedded IPv4 part "${tail}": ${ipv4.reason}`);
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(ipv4.value).toByteArray();
  const groups = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  return accepted('ipv6', `${address.slice(0, lastColon + 1)}${groups}`);
}

function describeShapeProblem(address: string): string | undefined {
  if (address.indexOf('::') !== address.lastIndexOf('::')) return 'has more than one "::"';
  if (address.includes(':::')) return 'has ":::"';
  const longGroup = address.split(':').find((group) => group.length > 4);
  if (longGroup !== undefined) return `group "${longGroup}" has more than four hex digits`;
  const groups = address.split(':').filter((group) => group !== '').length;
  if (!address.includes('::') && groups !== 8) return `has ${groups} groups; without "::" an IPv6 address has 8`;
  if (address.includes('::') && groups > 7) return `has ${groups} groups besides "::"; at most 7 fit`;
  return undefined;
}

function countColons(text: string): number {
  let count = 0;
  for (const character of text) if (character === ':') count += 1;
  return count;
}
