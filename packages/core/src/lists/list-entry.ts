import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { IndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import type { MatcherRule } from './indicator-matcher.js';
import { parseIpRange } from './ip-range.js';
import { compilePcreRegex } from './pcre-regex.js';

/** A list entry turned into a matcher rule, or why it cannot be one. */
export type EntryResult<T> =
  | { readonly ok: true; readonly rule: MatcherRule<T> }
  | { readonly ok: false; readonly reason: string };

// The indicator types each kind of rule can ever be asked about; a rule's types are narrowed to these so that an
// entry does not claim types it cannot match (and an entry left with none is reported instead of kept).
const IP_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6', 'url'];
const HOST_TYPES: readonly IndicatorType[] = ['domain', 'url', 'email'];

const NOT_HOST_CHARACTER = /[\s/?#@:[\]\\%<>^|*"']/u;
const HOST_LABEL = /^[a-z0-9_-]{1,63}$/;

/**
 * An entry compared by equality: it is parsed like an indicator (refanged, lower-cased where case does not matter,
 * IDN in punycode) and applies to its own type only, provided `types` includes it.
 */
export function exactRule<T>(text: string, types: readonly IndicatorType[], tag: T): EntryResult<T> {
  let type: IndicatorType;
  let value: string;
  try {
    ({ type, value } = parseIndicator(text));
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error)) return { ok: false, reason: error.reason };
    throw error;
  }
  if (!types.includes(type)) return { ok: false, reason: `is of type ${type}, which this list does not apply to` };
  return { ok: true, rule: { kind: 'exact', value, types: [type], entry: value, tag } };
}

/** An entry matching an IP range (`10.0.0.0/8`) or a single address (as /32 or /128). */
export function cidrRule<T>(text: string, types: readonly IndicatorType[], tag: T): EntryResult<T> {
  const parsed = parseIpRange(text);
  if (!parsed.ok) return parsed;
  const applicable = types.filter((type) => IP_TYPES.includes(type));
  if (applicable.length === 0) return { ok: false, reason: 'is an IP range, and this list applies to no IP type' };
  return { ok: true, rule: { kind: 'cidr', range: parsed.range, types: applicable, entry: parsed.range.text, tag } };
}

/**
 * An entry matching a host name and every name under it (`evil.com` matches `a.b.evil.com`), as MISP's `hostname`
 * lists do. IP addresses on such lists become single-address ranges, which is what MISP's label walk amounts to.
 */
export function hostnameRule<T>(text: string, types: readonly IndicatorType[], tag: T): EntryResult<T> {
  const trimmed = text.trim();
  if (/^[\d.]+$/.test(trimmed) || trimmed.includes(':')) return cidrRule(trimmed, types, tag);
  const normalised = normaliseHostname(trimmed);
  if (!normalised.ok) return normalised;
  const applicable = types.filter((type) => HOST_TYPES.includes(type));
  if (applicable.length === 0) return { ok: false, reason: 'is a host name, and this list applies to no host type' };
  const hostname = normalised.hostname;
  return { ok: true, rule: { kind: 'hostname', hostname, types: applicable, entry: hostname, tag } };
}

/** An entry matching any indicator whose normalised value contains it, case-sensitively (as MISP compares). */
export function substringRule<T>(text: string, types: readonly IndicatorType[], tag: T): EntryResult<T> {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'is empty' };
  return { ok: true, rule: { kind: 'substring', text: trimmed, types, entry: trimmed, tag } };
}

/** An entry written as a PCRE pattern with delimiters (`/^evil/i`), matched against normalised values. */
export function regexRule<T>(text: string, types: readonly IndicatorType[], tag: T): EntryResult<T> {
  const compiled = compilePcreRegex(text);
  if (!compiled.ok) return compiled;
  return { ok: true, rule: { kind: 'regex', regex: compiled.regex, types, entry: text.trim(), tag } };
}

/**
 * Normalises a host name the way indicators are (lower case, no trailing dot, IDN labels in punycode), but without
 * requiring a known public suffix: lists hold names such as `in-addr.arpa` or `localhost` that are not
 * registrable domains yet still match names under them. Leading and trailing dots are dropped, as MISP does.
 *
 * @example
 * ```ts
 * normaliseHostname('Bücher.DE.'); // { ok: true, hostname: 'xn--bcher-kva.de' }
 * ```
 */
export function normaliseHostname(text: string): { ok: true; hostname: string } | { ok: false; reason: string } {
  const trimmed = text.trim().replace(/^\.+|\.+$/g, '');
  if (trimmed === '') return { ok: false, reason: 'is empty' };
  const forbidden = NOT_HOST_CHARACTER.exec(trimmed);
  if (forbidden) return { ok: false, reason: `contains "${forbidden[0]}", which a host name cannot` };
  let ascii: string;
  try {
    // The same IDNA processing (UTS #46) indicators get, so list entries and lookups agree on every name.
    ascii = new URL(`http://${trimmed}`).hostname.replace(/\.$/, '');
  } catch {
    return { ok: false, reason: 'is not a valid host name (IDNA conversion failed)' };
  }
  const labels = ascii.split('.');
  const last = labels[labels.length - 1] ?? '';
  if (/^(?:\d+|0x[0-9a-f]*)$/.test(last)) return { ok: false, reason: 'ends in a number, so it is not a host name' };
  const bad = labels.find((label) => !HOST_LABEL.test(label));
  if (bad !== undefined) return { ok: false, reason: `has the invalid label "${bad}"` };
  if (ascii.length > 253) return { ok: false, reason: `is ${ascii.length} characters long (at most 253)` };
  return { ok: true, hostname: ascii };
}
