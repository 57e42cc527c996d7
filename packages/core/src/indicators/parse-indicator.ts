import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { CheckResult } from './check-result.js';
import { checkDomain, looksLikeDomain } from './domain.js';
import { checkEmail, looksLikeEmail } from './email.js';
import { checkHash, looksLikeHash } from './hash.js';
import type { Indicator, IndicatorType } from './indicator.js';
import { INDICATOR_TYPE_NAMES, type IndicatorTypeName, isIndicatorTypeName } from './indicator-type-name.js';
import { checkIpv4, looksLikeIpv4 } from './ipv4.js';
import { checkIpv6, looksLikeIpv6 } from './ipv6.js';
import { refang } from './refang.js';
import { checkUrl, looksLikeUrl } from './url.js';

// Indicators come from feeds, reports and user input; anything longer is not one, and refusing early bounds the
// work the checkers do.
const MAX_INPUT_BYTES = 8 * 1024;

interface Detector {
  /** How the error names the kind of indicator the input was taken for. */
  readonly name: string;
  /** Whether the input has this kind's shape; the first detector that claims the input decides the outcome. */
  readonly looksLike: (text: string) => boolean;
  /** Validates and normalises input this detector claimed. */
  readonly check: (text: string) => CheckResult;
}

// The order matters: a 32-digit hex string is a hash before it is anything else, `1.2.3.4` is an address and not a
// domain, and `http://user@evil.com/` is a URL even though it contains an `@`.
const DETECTORS: readonly Detector[] = [
  { name: 'hash', looksLike: looksLikeHash, check: (text) => checkHash(text) },
  { name: 'ipv4', looksLike: looksLikeIpv4, check: checkIpv4 },
  { name: 'ipv6', looksLike: looksLikeIpv6, check: checkIpv6 },
  { name: 'url', looksLike: looksLikeUrl, check: checkUrl },
  { name: 'email', looksLike: looksLikeEmail, check: checkEmail },
  { name: 'domain', looksLike: looksLikeDomain, check: checkDomain },
];

const CHECKS: Readonly<Record<IndicatorTypeName, (text: string) => CheckResult>> = {
  ip: checkIp,
  hostname: (text) => explain('domain', checkDomain(text)),
  ipv4: checkIpv4,
  ipv6: checkIpv6,
  domain: checkDomain,
  url: checkUrl,
  md5: (text) => checkHash(text, 'md5'),
  sha1: (text) => checkHash(text, 'sha1'),
  sha256: (text) => checkHash(text, 'sha256'),
  email: checkEmail,
};

/**
 * Checks and normalises one indicator of compromise. The input is trimmed and refanged (`hxxp`, `[.]`, …), then
 * taken as `type` when given, or else detected in this order: hash, IPv4, IPv6, URL, email, domain. `type` may be an
 * alias: `ip` (an IPv4 or IPv6 address, whichever the input is) or `hostname` (a domain); the result always has the
 * precise type.
 *
 * @throws {@link InvalidIndicatorError} when the input is not a string, is empty or longer than 8 KiB, or is not a
 * valid indicator (of `type`, when given); its `reason` says what was wrong.
 *
 * @example
 * ```ts
 * parseIndicator('hxxp://evil[.]com/x'); // { type: 'url', value: 'http://evil.com/x', defanged: true, … }
 * parseIndicator('2001:DB8:0:0:0:0:0:1'); // { type: 'ipv6', value: '2001:db8::1', … }
 * parseIndicator('8.8.8.8', 'ip'); // { type: 'ipv4', value: '8.8.8.8', … }
 * parseIndicator('evil.com', 'ipv4'); // throws: not a valid ipv4: expected four dot-separated decimal octets…
 * ```
 */
export function parseIndicator(input: string, type?: IndicatorTypeName): Indicator {
  // Callers in plain JavaScript or with parsed JSON can pass anything; the types alone do not protect this boundary.
  if (typeof input !== 'string') {
    throw new InvalidIndicatorError(describeValue(input), `expected a string, got ${kindOf(input)}`);
  }
  if (type !== undefined && !isIndicatorTypeName(type)) {
    throw new InvalidIndicatorError(
      input,
      `unknown indicator type ${JSON.stringify(describeValue(type))} (expected one of ${INDICATOR_TYPE_NAMES.join(', ')})`,
    );
  }
  const trimmed = input.trim();
  if (trimmed === '') throw new InvalidIndicatorError(input, 'is empty');
  if (exceedsMaxBytes(trimmed)) {
    throw new InvalidIndicatorError(input, `is longer than 8 KiB (${MAX_INPUT_BYTES} bytes of UTF-8); no indicator is`);
  }

  const text = refang(trimmed);
  const badCharacter = describeBadCharacter(text);
  if (badCharacter !== undefined) throw new InvalidIndicatorError(input, badCharacter);

  const result =
    type === undefined ? detect(text) : ALIAS_CHECKS.has(type) ? CHECKS[type](text) : explain(type, CHECKS[type](text));
  if (!result.ok) throw new InvalidIndicatorError(input, result.reason);
  return { type: result.type, value: result.value, input, defanged: text !== trimmed };
}

function detect(text: string): CheckResult {
  for (const detector of DETECTORS) {
    if (detector.looksLike(text)) return explain(detector.name, detector.check(text));
  }
  const character = [...text].find((c) => !looksLikeDomain(c)) ?? text;
  return {
    ok: false,
    reason: `not recognised as a hash, IP address, URL, email address or domain name (it contains "${character}")`,
  };
}

// Aliases word their own errors (they name the precise type they tried); the others are worded by `explain`.
const ALIAS_CHECKS: ReadonlySet<string> = new Set(['ip', 'hostname']);

// `ip` is whichever address family the input is; anything else is refused, saying what the input looks like instead.
function checkIp(text: string): CheckResult {
  if (looksLikeIpv4(text)) return explain('ipv4', checkIpv4(text));
  if (looksLikeIpv6(text)) return explain('ipv6', checkIpv6(text));
  const detected = detect(text);
  if (detected.ok) {
    return { ok: false, reason: `not a valid ip: expected an IPv4 or IPv6 address; this is ${ARTICLE[detected.type]}` };
  }
  if (text.includes(':')) return explain('ipv6', checkIpv6(text));
  return { ok: false, reason: 'not a valid ip: expected an IPv4 or IPv6 address' };
}

const ARTICLE: Readonly<Record<IndicatorType, string>> = {
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  domain: 'a domain name',
  url: 'a URL',
  md5: 'an MD5 hash',
  sha1: 'a SHA-1 hash',
  sha256: 'a SHA-256 hash',
  email: 'an email address',
};

function explain(name: string, result: CheckResult): CheckResult {
  return result.ok ? result : { ok: false, reason: `not a valid ${name}: ${result.reason}` };
}

const BAD_CHARACTER = /[\s\p{Cc}]/u;

function describeBadCharacter(text: string): string | undefined {
  if (!BAD_CHARACTER.test(text)) return undefined;
  const whitespace = /\s/u.exec(text);
  if (whitespace) return `contains whitespace (${codePoint(whitespace[0])}); an indicator is a single token`;
  const control = /\p{Cc}/u.exec(text);
  if (control) return `contains the control character ${codePoint(control[0])}`;
  return undefined;
}

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function exceedsMaxBytes(text: string): boolean {
  // A UTF-16 code unit takes one to three UTF-8 bytes, so the length alone usually decides and a huge input is never
  // copied into an encoder.
  if (text.length > MAX_INPUT_BYTES) return true;
  if (text.length * 3 <= MAX_INPUT_BYTES) return false;
  return new TextEncoder().encode(text).length > MAX_INPUT_BYTES;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function describeValue(value: unknown): string {
  try {
    return String(value);
  } catch {
    // Objects without a prototype (Object.create(null)) cannot be turned into a string.
    return kindOf(value);
  }
}
