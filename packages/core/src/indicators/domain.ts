import { parse as parseHostname } from 'tldts';
import { accepted, type CheckResult, refused } from './check-result.js';

const MAX_DOMAIN_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

// ASCII is limited to what a host name can hold before it reaches the URL parser, which would otherwise read `/`,
// `?`, `@` or `:` as URL syntax and silently return only part of the text. Non-ASCII is left to IDNA.
const NOT_DOMAIN_CHARACTER = /[^a-z0-9._\-\u{80}-\u{10FFFF}]/iu;
// Underscores are not allowed in host names by RFC 952, but real malware infrastructure uses them and DNS serves them.
const LABEL = /^[a-z0-9_-]+$/;
// The names reaching the suffix check are host names already checked here, never addresses (a numeric last label
// is refused first): tldts need not extract a host name or look for an IP address.
const SUFFIX_OPTIONS = { allowPrivateDomains: true, extractHostname: false, detectIp: false } as const;

/**
 * Whether `text` is made only of characters a domain name can be written with (letters, digits, `.`, `-`, `_`,
 * non-ASCII letters), so that {@link checkDomain} has something meaningful to say about it.
 */
export function looksLikeDomain(text: string): boolean {
  return !NOT_DOMAIN_CHARACTER.test(text);
}

/**
 * Checks that `text` is a registrable-looking domain name and returns it lower-cased, IDN labels in punycode, without
 * a trailing dot. Its last label must be a suffix the public suffix list knows (or `onion`).
 */
export function checkDomain(text: string): CheckResult {
  if (text === '' || text === '.') return refused('is empty');
  const forbidden = NOT_DOMAIN_CHARACTER.exec(text);
  if (forbidden) return refused(`contains "${forbidden[0]}", which is not allowed in a domain name`);
  const withoutRoot = text.endsWith('.') ? text.slice(0, -1) : text;
  // A numeric last label makes the URL parser treat the whole name as an IPv4 address; say so rather than relay
  // its opaque failure.
  const numericTld = numericLastLabel(withoutRoot);
  if (numericTld !== undefined) return refused(numericTldReason(numericTld));

  let ascii: string;
  try {
    // The WHATWG URL parser applies UTS #46 (the IDNA processing browsers use), so the result matches what a
    // browser would resolve; it exists in Node and in browsers alike.
    ascii = new URL(`http://${text}`).hostname;
  } catch {
    return refused('is not a valid internationalised domain name (IDNA conversion failed)');
  }
  // Full-width dots (`。`) only become `.` in IDNA processing, so the root dot may appear only now.
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1);
  const convertedNumericTld = numericLastLabel(ascii);
  if (convertedNumericTld !== undefined) return refused(numericTldReason(convertedNumericTld));

  const labels = ascii.split('.');
  const lastLabel = labels[labels.length - 1] ?? '';
  if (labels.length < 2) {
    return refused(
      isKnownSuffix(ascii)
        ? `"${ascii}" is only a top-level domain; a domain needs at least two labels`
        : `"${ascii}" has a single label and is not a known public suffix; a domain needs at least two labels`,
    );
  }
  for (const label of labels) {
    if (label === '') return refused('has an empty label (two dots in a row, or a leading dot)');
    if (label.length > MAX_LABEL_LENGTH) {
      return refused(`label "${label.slice(0, 20)}…" is ${label.length} characters long (at most ${MAX_LABEL_LENGTH})`);
    }
    if (!LABEL.test(label)) return refused(`label "${label}" has characters other than letters, digits, "-" and "_"`);
    if (label.startsWith('-') || label.endsWith('-')) return refused(`label "${label}" starts or ends with "-"`);
  }
  if (ascii.length > MAX_DOMAIN_LENGTH) {
    return refused(`is ${ascii.length} characters long (at most ${MAX_DOMAIN_LENGTH})`);
  }
  if (!isKnownSuffix(ascii)) {
    return refused(`"${lastLabel}" is not a known public suffix (top-level domain)`);
  }
  return accepted('domain', ascii);
}

function isKnownSuffix(hostname: string): boolean {
  // Tor hidden services are real indicators, but `.onion` is a special-use name, not a delegated TLD.
  if (hostname === 'onion' || hostname.endsWith('.onion')) return true;
  const parsed = parseHostname(hostname, SUFFIX_OPTIONS);
  return parsed.isIcann === true || parsed.isPrivate === true;
}

function numericLastLabel(name: string): string | undefined {
  const last = name.slice(name.lastIndexOf('.') + 1);
  return /^(?:\d+|0x[0-9a-f]*)$/i.test(last) ? last : undefined;
}

function numericTldReason(label: string): string {
  return `the last label "${label}" is a number, so this is an IP address (or a broken one), not a domain name`;
}
