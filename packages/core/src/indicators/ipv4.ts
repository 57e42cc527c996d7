import { accepted, type CheckResult, refused } from './check-result.js';

// Every part decimal or 0x-hex: the shapes inet_aton accepts, so that `127.1` or `0x7f.1` are refused as IPv4 with
// a reason instead of being mistaken for something else.
const IPV4_PART = String.raw`(?:\d+|0x[0-9a-f]*)`;
const IPV4_SHAPE = new RegExp(String.raw`^${IPV4_PART}(?:\.${IPV4_PART})*\.?$`, 'i');
const IPV4_PART_EXACT = new RegExp(`^${IPV4_PART}$`, 'i');
const IPV4_CIDR_SHAPE = /^[\d.]+\/\d+$/;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const CANONICAL_DOTTED_QUAD = new RegExp(`^(?:${OCTET}\\.){3}${OCTET}$`);

/** Whether `text` has the shape of an IPv4 address in any notation (including refused ones and CIDR ranges). */
export function looksLikeIpv4(text: string): boolean {
  return IPV4_SHAPE.test(text) || IPV4_CIDR_SHAPE.test(text);
}

/**
 * Checks that `text` is an IPv4 address in strict four-part dotted decimal; one trailing dot (a full stop copied
 * from a sentence) is dropped.
 */
export function checkIpv4(text: string): CheckResult {
  if (IPV4_CIDR_SHAPE.test(text)) return refused('is a CIDR range; give a single address');
  return checkDottedQuad(text.endsWith('.') ? text.slice(0, -1) : text);
}

/**
 * Checks that `text` is exactly four decimal octets, as embedded in an IPv6 address too. Other notations are
 * refused because parsers disagree on them: inet_aton reads `010` as octal 8 and `127.1` as `127.0.0.1`, while
 * most people (and some parsers) read them as decimal or as invalid.
 */
export function checkDottedQuad(text: string): CheckResult {
  // The common case in one test; anything else goes through the checks below, which say what is wrong.
  if (CANONICAL_DOTTED_QUAD.test(text)) return accepted('ipv4', text);
  const parts = text.split('.');
  if (!parts.every((part) => IPV4_PART_EXACT.test(part))) {
    return refused('expected four dot-separated decimal octets, like 192.0.2.1');
  }
  for (const part of parts) {
    if (/^0x/i.test(part)) return refused(`octet "${part}" is hexadecimal; only decimal octets are accepted`);
    if (part.length > 1 && part.startsWith('0')) {
      return refused(`octet "${part}" has a leading zero, which inet_aton reads as octal; refused as ambiguous`);
    }
    if (Number(part) > 255) return refused(`octet ${part} is out of range (0-255)`);
  }
  if (parts.length !== 4) {
    return refused(
      `has ${parts.length} part${parts.length === 1 ? '' : 's'}; only four-part dotted decimal is accepted ` +
        '(short forms like 127.1 are ambiguous)',
    );
  }
  // Four decimal octets, each 0-255 without a leading zero: the text is already the canonical form, so there is
  // nothing for ipaddr.js to parse (this runs on every lookup of an address).
  return accepted('ipv4', text);
}
